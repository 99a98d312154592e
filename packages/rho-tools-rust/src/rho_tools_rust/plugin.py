"""The `rho-tools-rust` plugin (entry point `rho-tools-rust = "rho_tools_rust.plugin"`).

The tools are registered by what they declare (`rho_tools_rust.declared`) where the hook
offers them (`[rust] tools`); a tool's module is imported on its first call, and nothing runs
cargo or rustc before a tool is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from rho_kernel import hookimpl
from rho_tools_rust.config import RustConfig
from rho_tools_rust.prompt import has_cargo_manifest

if TYPE_CHECKING:
    from rho_kernel import RhoConfig
    from rho_kernel.tools import Tool

#: The config section this plugin reads.
SECTION = "rust"


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[rust]` (read it with `config.section("rust", RustConfig)`)."""
    return {SECTION: RustConfig}


@hookimpl
def rho_register_tools(config: RhoConfig, root: Path) -> list[Tool]:
    """The Rust tools, in the original's registration order, where `[rust] tools` offers
    them (by default: in a project with a Cargo.toml at its root)."""
    offered = config.section(SECTION, RustConfig).tools
    if offered == "never" or (offered == "auto" and not has_cargo_manifest(root)):
        return []
    from rho_kernel.tools import declared_tools
    from rho_tools_rust.declared import DECLARATIONS, SCHEMAS

    return declared_tools(DECLARATIONS, SCHEMAS)


@hookimpl
def rho_system_prompt_fragments(config: RhoConfig, root: Path) -> list[str]:
    """The Rust tooling block, for a project with a Cargo.toml at its root (unless `[rust]
    tools = "never"` leaves it without the tools the block names)."""
    from rho_tools_rust.prompt import RUST_TOOLING

    offered = config.section(SECTION, RustConfig).tools
    return [RUST_TOOLING] if offered != "never" and has_cargo_manifest(root) else []


__all__ = [
    "SECTION",
    "rho_register_config_sections",
    "rho_register_tools",
    "rho_system_prompt_fragments",
]
