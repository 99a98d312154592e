"""TypeScript/JavaScript extensions for rho, run in V8.

- `rho_ext_js.config`: the `[extensions]` section (`ExtensionsConfig`, `ExtensionPermissions`),
  declared by the `rho_ext_js.plugin` entry point.
- `rho_ext_js.isolate`: `Isolate`, the V8 isolate running one extension (mini-racer is
  imported only when an isolate starts); `rho_ext_js.host`: `HostApi` (what the isolate asks
  of rho), `Limits` and the errors (`HostError`, `ExtensionError`, `ExtensionTimeout`,
  `ExtensionMemoryError`).
"""

from __future__ import annotations

from importlib import metadata as _metadata

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

try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-ext-js")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

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
