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
    """Contribute the file and shell tools, in rho's registration order."""
    from rho_tools_fs.read_file import read_file
    from rho_tools_fs.run_command import run_command
    from rho_tools_fs.wait_for import wait_for
    from rho_tools_fs.write_file import write_file

    return [read_file, write_file, run_command, wait_for]


__all__ = ["rho_register_tools"]
