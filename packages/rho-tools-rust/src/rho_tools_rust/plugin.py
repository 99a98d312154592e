"""The `rho-tools-rust` plugin (entry point `rho-tools-rust = "rho_tools_rust.plugin"`).

Tool modules are imported only when the hook is called; nothing runs cargo or rustc
before a tool is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel import hookimpl

if TYPE_CHECKING:
    from rho_kernel.tools import Tool


@hookimpl
def rho_register_tools() -> list[Tool]:
    """Contribute the Rust tools, in the original's registration order."""
    from rho_tools_rust.cargo_check import cargo_check, cargo_clippy
    from rho_tools_rust.cargo_fix import cargo_fix
    from rho_tools_rust.cargo_test import cargo_test
    from rho_tools_rust.crates_io import crates_io_lookup
    from rho_tools_rust.rustc_explain import rustc_explain
    from rho_tools_rust.rustdoc import rustdoc_lookup

    return [
        cargo_check,
        cargo_clippy,
        rustc_explain,
        cargo_test,
        cargo_fix,
        rustdoc_lookup,
        crates_io_lookup,
    ]


@hookimpl
def rho_system_prompt_fragments(root: Path) -> list[str]:
    """The Rust tooling block, for a project with a Cargo.toml at its root."""
    from rho_tools_rust.prompt import rust_prompt_fragment

    fragment = rust_prompt_fragment(root)
    return [fragment] if fragment else []


__all__ = ["rho_register_tools", "rho_system_prompt_fragments"]
