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

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

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


if not TYPE_CHECKING:  # each name (and `__version__`) imported on first use
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-ext-js")


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
