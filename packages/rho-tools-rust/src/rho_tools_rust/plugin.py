"""The `rho-tools-rust` plugin (entry point `rho-tools-rust = "rho_tools_rust.plugin"`).

Tool modules are imported only when the hook is called; nothing runs cargo or rustc
before a tool is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import hookimpl

if TYPE_CHECKING:
    from rho_kernel.tools import Tool


@hookimpl
def rho_register_tools() -> list[Tool]:
    """Contribute the Rust tools."""
    from rho_tools_rust.cargo_check import cargo_check, cargo_clippy

    return [cargo_check, cargo_clippy]


__all__ = ["rho_register_tools"]
