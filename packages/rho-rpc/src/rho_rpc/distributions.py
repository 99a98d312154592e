"""Which installed rho plugins rho ships itself, which come from third parties, and their
versions (`rho --version`).

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
    {
        "rho-kernel",
        "rho-rpc",
        "rho-tools-fs",
        "rho-tools-rust",
        "rho-ext-js",
        "rho-memory",
        "rho-mcp",
        "rho-acp",
        "rho-hooks",
        "rho-checkpoints",
    }
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


def installed_packs(path: Sequence[str] | None = None) -> list[tuple[str, str, bool]]:
    """(name, version, shipped with rho) of every installed distribution of rho's own and
    of every other that provides a `rho` entry point or a subcommand (`rho.subcommands`),
    rho's own first, each group by name. A distribution found twice on the path is listed
    once, as the first (the one Python imports)."""
    found = distributions(path=list(path)) if path is not None else distributions()
    packs: dict[str, tuple[str, str, bool]] = {}
    for dist in found:
        name = dist.metadata["Name"] or ""
        key = normalize(name)
        groups = {ep.group for ep in dist.entry_points}
        if key in packs or not (groups & {"rho", "rho.subcommands"} or key in RHO_DISTRIBUTIONS):
            continue
        packs[key] = (key, dist.version or "unknown", key in RHO_DISTRIBUTIONS)
    return sorted(packs.values(), key=lambda pack: (not pack[2], pack[0]))


def version_text(rho_version: str, path: Sequence[str] | None = None) -> str:
    """What `rho --version` prints: rho's version, then each installed pack's."""
    lines = [f"rho {rho_version}"]
    for name, version, own in installed_packs(path):
        if name != "rho-rpc":  # the distribution of the `rho` command itself
            lines.append(f"  {name} {version}" + ("" if own else " (third-party)"))
    return "\n".join(lines)


def disabling_config(names: Iterable[str]) -> str:
    """A config file (TOML) whose `[plugins] disabled` lists `names`."""
    quoted = ", ".join(json.dumps(name, ensure_ascii=False) for name in names)
    return f"[plugins]\ndisabled = [{quoted}]\n"


__all__ = [
    "RHO_DISTRIBUTIONS",
    "disabling_config",
    "foreign_plugins",
    "installed_packs",
    "normalize",
    "version_text",
]
