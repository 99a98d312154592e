"""TypeScript/JavaScript extensions for rho, run in V8.

- `rho_ext_js.config`: the `[extensions]` section (`ExtensionsConfig`, `ExtensionPermissions`),
  declared by the `rho_ext_js.plugin` entry point.
- `rho_ext_js.isolate`: `Isolate`, the V8 isolate running one extension (mini-racer is
  imported only when an isolate starts); `rho_ext_js.host`: `HostApi` (what the isolate asks
  of rho), `Limits` and the errors (`HostError`, `ExtensionError`, `ExtensionTimeout`,
  `ExtensionMemoryError`).

Each name (and `__version__`) is imported from its module on first use, so loading the
plugin imports neither the isolate nor the host API.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rho_ext_js.config import ExtensionPermissions, ExtensionsConfig
    from rho_ext_js.host import (
        ExtensionError,
        ExtensionMemoryError,
        ExtensionTimeout,
        HostApi,
        HostError,
        Limits,
    )
    from rho_ext_js.isolate import Isolate

    __version__: str

_LAZY = {
    "ExtensionPermissions": "rho_ext_js.config",
    "ExtensionsConfig": "rho_ext_js.config",
    "ExtensionError": "rho_ext_js.host",
    "ExtensionMemoryError": "rho_ext_js.host",
    "ExtensionTimeout": "rho_ext_js.host",
    "HostApi": "rho_ext_js.host",
    "HostError": "rho_ext_js.host",
    "Limits": "rho_ext_js.host",
    "Isolate": "rho_ext_js.isolate",
}


def _version() -> str:
    """This package's version, as installed (its pyproject's)."""
    from importlib import metadata

    try:
        return metadata.version("rho-ext-js")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import each exported name from its module on first use."""
    if name == "__version__":
        value: Any = _version()
    elif name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "ExtensionError",
    "ExtensionMemoryError",
    "ExtensionPermissions",
    "ExtensionTimeout",
    "ExtensionsConfig",
    "HostApi",
    "HostError",
    "Isolate",
    "Limits",
    "__version__",
]
