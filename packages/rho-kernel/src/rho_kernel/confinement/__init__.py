"""OS confinement of the commands rho runs for the model, under the command policy.

- `ConfinementPolicy` says what a confined process may do (writable paths, read-only and
  unreadable ones, network); `build_policy` makes the project's.
- `ConfinementBackend` turns a policy into a confined argv: `Bubblewrap` and `Landlock`
  (Linux: Landlock and seccomp, with namespaces where the machine allows, used where
  bubblewrap is missing or cannot start) and `Seatbelt` (macOS) are built in; plugins add
  more with `rho_register_confinement_backends`.
- `Confinement` is the project's: it chooses the backend (by probing), reports its
  `SandboxStatus`, and gives the process runner its launcher. Tools reach it through
  `ToolContext.run_process`.
- `sandbox_note` explains a failure the sandbox caused; `sandbox_announcement` is what a
  front end says once at start about how commands run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem, Problem
    from rho_kernel.confinement.bubblewrap import Bubblewrap
    from rho_kernel.confinement.grants import GrantError, WritableGrants
    from rho_kernel.confinement.hints import sandbox_note
    from rho_kernel.confinement.landlock import Landlock
    from rho_kernel.confinement.policy import (
        DEFAULT_HOME_READ_DENY,
        DEFAULT_SYSTEM_READ_DENY,
        READ_ONLY_NAMES,
        ConfinementPolicy,
        build_policy,
    )
    from rho_kernel.confinement.seatbelt import Seatbelt, seatbelt_profile
    from rho_kernel.confinement.state import (
        ConfinedLauncher,
        Confinement,
        ConfinementRefused,
        SandboxMode,
        SandboxStatus,
        sandbox_announcement,
        sandbox_summary,
    )

_ORIGIN = exports_of(
    {
        "rho_kernel.confinement.backend": ("ConfinementBackend", "ConfinementProblem", "Problem"),
        "rho_kernel.confinement.bubblewrap": ("Bubblewrap",),
        "rho_kernel.confinement.grants": ("GrantError", "WritableGrants"),
        "rho_kernel.confinement.hints": ("sandbox_note",),
        "rho_kernel.confinement.landlock": ("Landlock",),
        "rho_kernel.confinement.policy": (
            "DEFAULT_HOME_READ_DENY",
            "DEFAULT_SYSTEM_READ_DENY",
            "READ_ONLY_NAMES",
            "ConfinementPolicy",
            "build_policy",
        ),
        "rho_kernel.confinement.seatbelt": ("Seatbelt", "seatbelt_profile"),
        "rho_kernel.confinement.state": (
            "ConfinedLauncher",
            "Confinement",
            "ConfinementRefused",
            "SandboxMode",
            "SandboxStatus",
            "sandbox_announcement",
            "sandbox_summary",
        ),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "DEFAULT_HOME_READ_DENY",
    "DEFAULT_SYSTEM_READ_DENY",
    "READ_ONLY_NAMES",
    "Bubblewrap",
    "ConfinedLauncher",
    "Confinement",
    "ConfinementBackend",
    "ConfinementPolicy",
    "ConfinementProblem",
    "ConfinementRefused",
    "GrantError",
    "Landlock",
    "Problem",
    "SandboxMode",
    "SandboxStatus",
    "Seatbelt",
    "WritableGrants",
    "build_policy",
    "sandbox_announcement",
    "sandbox_note",
    "sandbox_summary",
    "seatbelt_profile",
]
