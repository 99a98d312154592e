"""Rust tooling for rho (cargo, rustc, rustdoc, crates.io)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
else:  # `__version__` read from the installed metadata on first use
    __getattr__, __dir__ = lazy_exports(__name__, {}, distribution="rho-tools-rust")

__all__ = ["__version__"]
