"""The `rho-tools-fs` plugin (entry point `rho-tools-fs = "rho_tools_fs.plugin"`).

The tools are registered by what they declare (`rho_tools_fs.declared`); a tool's module is
imported on its first call, so discovering the plugin and registering its tools cost next to
nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from rho_kernel import hookimpl
from rho_tools_fs.config import SECTION, ToolsConfig

if TYPE_CHECKING:
    from rho_kernel.tools import Tool


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[tools]` (`[tools.edit]` for edit_file; read with `config.section`)."""
    return {SECTION: ToolsConfig}


@hookimpl
def rho_register_tools() -> list[Tool]:
    """Contribute the file, search and shell tools, in rho's registration order (each
    imports its implementation on first use, see `rho_tools_fs.declared`)."""
    from rho_kernel.tools import declared_tools
    from rho_tools_fs.declared import DECLARATIONS, SCHEMAS

    return declared_tools(DECLARATIONS, SCHEMAS)


__all__ = ["rho_register_config_sections", "rho_register_tools"]
