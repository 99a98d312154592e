"""File tools for rho, confined to the project sandbox.

- `rho_tools_fs.read_file.read_file`: read a text file, framed and hashlined;
- `rho_tools_fs.write_file.write_file`: create or replace a file atomically;
- `rho_tools_fs.hashline`: the `{line}#{HASH}:{content}` anchor format shared with editing tools.

The tools are registered by the `rho_tools_fs.plugin` entry point; importing this package
does not import them (nor `hashline`, until one of its names is read from here).
"""

from __future__ import annotations

from importlib import metadata as _metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rho_tools_fs.hashline import format_hashlines, line_hash, split_lines

try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-tools-fs")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

#: The names this package exports from `rho_tools_fs.hashline`, imported on first use.
_HASHLINE_NAMES = frozenset({"format_hashlines", "line_hash", "split_lines"})


def __getattr__(name: str) -> Any:
    if name not in _HASHLINE_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rho_tools_fs import hashline

    value = getattr(hashline, name)
    globals()[name] = value
    return value


__all__ = ["__version__", "format_hashlines", "line_hash", "split_lines"]
