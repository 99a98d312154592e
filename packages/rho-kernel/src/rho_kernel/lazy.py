"""Package namespaces whose names are imported on first use (PEP 562).

A package's `__init__` maps each name it exports to the module that defines it and hands the
map to `lazy_exports`; the module-level `__getattr__` and `__dir__` it returns import that
module only when the name is first read. `from package import Name` works as before, and a
type checker sees the same names through the package's `if TYPE_CHECKING:` imports.

This keeps start-up cheap: importing `rho_kernel` (or one of its sub-packages) no longer
imports the agent loop, compaction, confinement and the rest before anything uses them.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def exports_of(modules: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """`{module: names}` turned into `{name: module}` (a name exported twice is an error)."""
    origin: dict[str, str] = {}
    for module, names in modules.items():
        for name in names:
            if name in origin:
                raise ValueError(f"{name} is exported by both {origin[name]} and {module}")
            origin[name] = module
    return origin


def installed_version(distribution: str) -> str:
    """The installed version of `distribution` (its pyproject's), or "0+unknown" for a source
    tree that is not installed.

    Read from the `Version:` line of its `.dist-info/METADATA`, found on `sys.path` as
    `importlib.metadata` finds it (the first folder that holds one wins); importing
    `importlib.metadata` (and the `email` package it parses with) costs more than the rest
    of a start's reading of versions. Anything unusual (no such folder, two in one place, an
    egg) is left to `importlib.metadata`."""
    version = _dist_info_version(distribution)
    if version is not None:
        return version
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _dist_info_version(distribution: str) -> str | None:
    prefix = re.sub(r"[-_.]+", "_", distribution).lower() + "-"
    for entry in sys.path:
        try:
            names = [
                name
                for name in os.listdir(entry or ".")
                if name.lower().startswith(prefix) and name.endswith(".dist-info")
            ]
        except OSError:
            continue
        if len(names) > 1:
            return None
        if names:
            return _metadata_version(os.path.join(entry or ".", names[0], "METADATA"))
    return None


def _metadata_version(path: str) -> str | None:
    """The `Version:` header of a METADATA file (headers end at the first blank line)."""
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    return None
                if line.startswith("Version:"):
                    return line.partition(":")[2].strip() or None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def lazy_exports(
    package: str, origin: Mapping[str, str], *, distribution: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, resolving each name of `origin`
    (`{name: module}`) from its module on first use; the value is then kept in the package's
    namespace. With `distribution`, `__version__` is that distribution's installed version,
    read on first use too.

    In the package's `__init__`: `__getattr__, __dir__ = lazy_exports(__name__, {...})`,
    under `if not TYPE_CHECKING:` with the same names imported under `if TYPE_CHECKING:`, so
    that a type checker sees them and an unknown name stays an error."""

    def __getattr__(name: str) -> Any:
        if name == "__version__" and distribution is not None:
            value: Any = installed_version(distribution)
        elif name in origin:
            value = getattr(importlib.import_module(origin[name]), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        names = set(vars(sys.modules[package])) | set(origin)
        return sorted(names | {"__version__"} if distribution is not None else names)

    return __getattr__, __dir__


__all__ = ["exports_of", "installed_version", "lazy_exports"]
