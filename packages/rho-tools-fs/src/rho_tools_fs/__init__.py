"""File tools for rho, confined to the project sandbox.

- `rho_tools_fs.read_file.read_file`: read a text file, framed and hashlined;
- `rho_tools_fs.write_file.write_file`: create or replace a file atomically;
- `rho_tools_fs.hashline`: the `{line}#{HASH}:{content}` anchor format shared with editing tools.

The tools are registered by the `rho_tools_fs.plugin` entry point; importing this package
does not import them.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from rho_tools_fs.hashline import format_hashlines, line_hash, split_lines

try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-tools-fs")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__", "format_hashlines", "line_hash", "split_lines"]
