"""The `rho-ext-js` plugin (entry point `rho-ext-js = "rho_ext_js.plugin"`): owns `[extensions]`."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from rho_ext_js.config import ExtensionsConfig
from rho_kernel import hookimpl

#: The config section this plugin reads.
SECTION = "extensions"


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[extensions]` (read it with `config.section("extensions", ExtensionsConfig)`)."""
    return {SECTION: ExtensionsConfig}


@hookimpl
def rho_project_files_to_trust(root: Path) -> list[str]:
    """The project's extension sources: they run only while `rho trust` vouches for them."""
    from rho_ext_js.trust import project_extension_files

    return project_extension_files(root)


__all__ = ["SECTION", "rho_project_files_to_trust", "rho_register_config_sections"]
