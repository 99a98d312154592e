"""Which OS sandbox confines commands on this machine, for the tests that need one.

rho picks bubblewrap where it works and Landlock otherwise (CI runs the suite both ways:
once with bubblewrap hidden); a test of confinement runs under whichever rho would use, and
skips, naming both, only where neither works.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest


@cache
def working_backend() -> str | None:
    """The backend rho would choose here ("bubblewrap" or "landlock"), or None."""
    from rho_kernel.confinement import Bubblewrap
    from rho_kernel.confinement.landlock import Landlock

    for backend in (Bubblewrap(), Landlock()):
        if backend.supports_platform() and backend.probe() is None:
            return backend.name
    return None


def landlock_tier() -> str | None:
    """The namespaces the Landlock backend gets here ("user", "mount", "none"), or None."""
    from rho_kernel.confinement.landlock import Landlock

    backend = Landlock()
    return backend.namespaces if backend.probe() is None else None


#: Skips a test where commands cannot be confined at all.
needs_sandbox = pytest.mark.skipif(
    working_backend() is None,
    reason="no OS sandbox works here: bubblewrap is not installed and Landlock is unavailable",
)


#: How a write the sandbox refuses fails: a read-only mount (bubblewrap, or Landlock with a
#: mount namespace, for `.git`), or Landlock's refusal.
REFUSED_WRITE = ("Read-only file system", "Permission denied")


def refusals(output: str) -> int:
    """How many refused writes `output` reports."""
    return sum(output.count(sign) for sign in REFUSED_WRITE)


#: `[sandbox] require = false`: where no OS sandbox works, commands run unconfined as the rules
#: and the approval mode say, instead of each asking a person. Tests that run commands but are
#: not about confinement put it in the user's config, so that they run on such a machine too;
#: wherever a sandbox works it changes nothing.
RUN_ANYWAY = "[sandbox]\nrequire = false\n"


def user_config(home: Path, text: str = "") -> Path:
    """Write the user's config (`home/.rho/config.toml`): `text`, then `RUN_ANYWAY`."""
    path = home / ".rho" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{text.rstrip()}\n{RUN_ANYWAY}" if text.strip() else RUN_ANYWAY)
    return path
