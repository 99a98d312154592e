"""File tools for rho, confined to the project sandbox.

- `rho_tools_fs.read_file.read_file`: read a text file, framed and hashlined;
- `rho_tools_fs.write_file.write_file`: create or replace a file atomically;
- `rho_tools_fs.hashline`: the `{line}#{HASH}:{content}` anchor format shared with editing tools.

The tools are registered by the `rho_tools_fs.plugin` entry point; importing this package
does not import them (nor `hashline`, until one of its names is read from here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
    from rho_tools_fs.hashline import format_hashlines, line_hash, split_lines
else:  # the hashline names and `__version__`, made on first use
    __getattr__, __dir__ = lazy_exports(
        __name__,
        dict.fromkeys(("format_hashlines", "line_hash", "split_lines"), "rho_tools_fs.hashline"),
        distribution="rho-tools-fs",
    )

__all__ = ["__version__", "format_hashlines", "line_hash", "split_lines"]
