"""TypeScript/JavaScript extensions for rho, run in V8.

- `rho_ext_js.config`: the `[extensions]` section (`ExtensionsConfig`, `ExtensionPermissions`),
  declared by the `rho_ext_js.plugin` entry point.
"""

from __future__ import annotations

from rho_ext_js.config import ExtensionPermissions, ExtensionsConfig

__version__ = "0.1.0"

__all__ = ["ExtensionPermissions", "ExtensionsConfig", "__version__"]
