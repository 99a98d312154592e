"""The `rho-tools-fs` plugin (entry point `rho-tools-fs = "rho_tools_fs.plugin"`).

The tool modules are imported only when the hook is called, so discovering the plugin costs
next to nothing.
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
    """Contribute the file, search and shell tools, in rho's registration order."""
    from rho_tools_fs.batch_read import batch_read
    from rho_tools_fs.edit_file import edit_file
    from rho_tools_fs.find_files import find_files
    from rho_tools_fs.list_dir import list_dir
    from rho_tools_fs.read_file import read_file
    from rho_tools_fs.run_command import run_command
    from rho_tools_fs.search_files import search_files
    from rho_tools_fs.session_summary import session_summary
    from rho_tools_fs.wait_for import wait_for
    from rho_tools_fs.write_file import write_file

    return [
        read_file,
        batch_read,
        write_file,
        list_dir,
        edit_file,
        search_files,
        find_files,
        run_command,
        wait_for,
        session_summary,
    ]


__all__ = ["rho_register_config_sections", "rho_register_tools"]
