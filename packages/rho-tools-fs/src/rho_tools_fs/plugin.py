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
    from rho_kernel import RhoConfig
    from rho_kernel.tools import Tool


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[tools]` (`[tools.edit]` for edit_file; read with `config.section`)."""
    return {SECTION: ToolsConfig}


@hookimpl
def rho_register_tools(config: RhoConfig) -> list[Tool]:
    """Contribute the file, search and shell tools, in rho's registration order (each
    imports its implementation on first use, see `rho_tools_fs.declared`). The shell tools
    (run_command, wait_for) only where the shell they run is installed: the model is not
    offered a tool every call of which would fail; rho says so on stderr."""
    from rho_kernel import diagnostics
    from rho_kernel.process import ShellNotFoundError, find_shell
    from rho_kernel.tools import ToolDeclaration, declared_tools
    from rho_tools_fs.declared import DECLARATIONS, SCHEMAS, SHELL_TOOLS

    declarations: tuple[ToolDeclaration, ...] = DECLARATIONS
    try:
        find_shell(config.shell.program)
    except ShellNotFoundError as exc:
        declarations = tuple(d for d in DECLARATIONS if d.name not in SHELL_TOOLS)
        diagnostics.warn(f"{' and '.join(SHELL_TOOLS)} are not offered: {exc}")
    return declared_tools(declarations, SCHEMAS)


__all__ = ["rho_register_config_sections", "rho_register_tools"]
