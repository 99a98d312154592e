"""The `rho-tools-fs` plugin (entry point `rho-tools-fs = "rho_tools_fs.plugin"`).

The tool modules are imported only when the hook is called, so discovering the plugin costs
next to nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import hookimpl

if TYPE_CHECKING:
    from rho_kernel.tools import Tool


@hookimpl
def rho_register_tools() -> list[Tool]:
    """Contribute the file tools, in rho's registration order."""
    from rho_tools_fs.batch_read import batch_read
    from rho_tools_fs.find_files import find_files
    from rho_tools_fs.list_dir import list_dir
    from rho_tools_fs.read_file import read_file
    from rho_tools_fs.search_files import search_files
    from rho_tools_fs.session_summary import session_summary
    from rho_tools_fs.write_file import write_file

    return [
        read_file,
        batch_read,
        write_file,
        list_dir,
        search_files,
        find_files,
        session_summary,
    ]


__all__ = ["rho_register_tools"]
