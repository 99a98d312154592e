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


def lazy_exports(
    package: str, origin: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, resolving each name of `origin` from
    its module on first use (the value is then kept in the package's namespace)."""

    def __getattr__(name: str) -> Any:
        module_name = origin.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(origin))

    return __getattr__, __dir__


__all__ = ["exports_of", "lazy_exports"]
