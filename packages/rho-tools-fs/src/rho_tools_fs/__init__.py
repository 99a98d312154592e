"""File tools for rho, confined to the project sandbox.

- `rho_tools_fs.read_file.read_file`: read a text file, framed and hashlined;
- `rho_tools_fs.write_file.write_file`: create or replace a file atomically;
- `rho_tools_fs.hashline`: the `{line}#{HASH}:{content}` anchor format shared with editing tools.

The tools are registered by the `rho_tools_fs.plugin` entry point; importing this package
does not import them (nor `hashline`, until one of its names is read from here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str
    from rho_tools_fs.hashline import format_hashlines, line_hash, split_lines


def _version() -> str:
    """This package's version, as installed (its pyproject's)."""
    from importlib import metadata

    try:
        return metadata.version("rho-tools-fs")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"


#: The names this package exports from `rho_tools_fs.hashline`, imported on first use.
_HASHLINE_NAMES = frozenset({"format_hashlines", "line_hash", "split_lines"})


def __getattr__(name: str) -> Any:
    """`__version__` and the hashline names, made on first use."""
    if name == "__version__":
        value: Any = _version()
    elif name in _HASHLINE_NAMES:
        from rho_tools_fs import hashline

        value = getattr(hashline, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = ["__version__", "format_hashlines", "line_hash", "split_lines"]
