"""Which installed rho plugins rho ships itself, and which come from third parties.

docs/openrpc.json documents rho's own protocol: the methods of the distributions below, never
those of a plugin that happens to be installed next to them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from importlib.metadata import distributions

#: The distributions rho is made of (normalized names).
RHO_DISTRIBUTIONS = frozenset(
    {"rho-kernel", "rho-rpc", "rho-tools-fs", "rho-tools-rust", "rho-ext-js", "rho-memory"}
)


def normalize(name: str) -> str:
    """A distribution name as packaging compares it (`Rho_Tools.FS` → `rho-tools-fs`)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def foreign_plugins(path: Sequence[str] | None = None) -> list[str]:
    """The entry-point names (group `rho`) of installed plugins not shipped with rho, sorted.

    `path` is where to look for installed distributions (default: `sys.path`). A name that
    one of rho's own distributions also uses is left out, so disabling the result never
    disables part of rho.
    """
    found = distributions(path=list(path)) if path is not None else distributions()
    own: set[str] = set()
    foreign: set[str] = set()
    for dist in found:
        names = {ep.name for ep in dist.entry_points if ep.group == "rho"}
        if normalize(dist.metadata["Name"] or "") in RHO_DISTRIBUTIONS:
            own |= names
        else:
            foreign |= names
    return sorted(foreign - own)


def disabling_config(names: Iterable[str]) -> str:
    """A config file (TOML) whose `[plugins] disabled` lists `names`."""
    quoted = ", ".join(json.dumps(name, ensure_ascii=False) for name in names)
    return f"[plugins]\ndisabled = [{quoted}]\n"


__all__ = ["RHO_DISTRIBUTIONS", "disabling_config", "foreign_plugins", "normalize"]
