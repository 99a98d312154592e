"""Rust tooling for rho (cargo, rustc, rustdoc, crates.io)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    __version__: str


def _version() -> str:
    """This package's version, as installed (its pyproject's)."""
    from importlib import metadata

    try:
        return metadata.version("rho-tools-rust")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed metadata on first use."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = version = _version()
    return version


__all__ = ["__version__"]
