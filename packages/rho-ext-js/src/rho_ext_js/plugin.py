"""The `rho-ext-js` plugin (entry point `rho-ext-js = "rho_ext_js.plugin"`): owns `[extensions]`."""

from __future__ import annotations

from pydantic import BaseModel

from rho_ext_js.config import ExtensionsConfig
from rho_kernel import hookimpl

#: The config section this plugin reads.
SECTION = "extensions"


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[extensions]` (read it with `config.section("extensions", ExtensionsConfig)`)."""
    return {SECTION: ExtensionsConfig}


__all__ = ["SECTION", "rho_register_config_sections"]
