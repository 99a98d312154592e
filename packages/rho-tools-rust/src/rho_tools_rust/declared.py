"""The Rust tools as rho registers them, each a `rho_kernel.tools.DeclaredTool`: the flags
are declared below, the descriptions and parameters kept in `schemas.json` (after changing a
tool, rewrite it with `python -m rho_tools_rust.declared`), and a tool's module is imported on
its first call, so a start in a Rust project imports none of them."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.tools import Phase, Risk, ToolDeclaration, write_schemas

#: The tools' definitions as their implementations give them.
SCHEMAS = Path(__file__).with_name("schemas.json")

#: The tools of this pack, in rho's registration order.
DECLARATIONS = (
    ToolDeclaration(
        "cargo_check",
        "rho_tools_rust.cargo_check",
        "cargo_check",
        Risk.DESTRUCTIVE,
        Phase.VERIFICATION,
        runs_processes=True,
        confined_risk=Risk.READ,
    ),
    ToolDeclaration(
        "cargo_clippy",
        "rho_tools_rust.cargo_check",
        "cargo_clippy",
        Risk.DESTRUCTIVE,
        Phase.VERIFICATION,
        runs_processes=True,
        confined_risk=Risk.READ,
    ),
    ToolDeclaration(
        "rustc_explain",
        "rho_tools_rust.rustc_explain",
        "rustc_explain",
        Risk.READ,
        Phase.EXPLORATION,
        runs_processes=True,
    ),
    ToolDeclaration(
        "cargo_test",
        "rho_tools_rust.cargo_test",
        "cargo_test",
        Risk.DESTRUCTIVE,
        Phase.VERIFICATION,
        runs_processes=True,
        confined_risk=Risk.READ,
    ),
    ToolDeclaration(
        "cargo_fix",
        "rho_tools_rust.cargo_fix",
        "cargo_fix",
        Risk.DESTRUCTIVE,
        Phase.EXECUTION,
        runs_processes=True,
        confined_risk=Risk.WRITE,
    ),
    ToolDeclaration(
        "rustdoc_lookup",
        "rho_tools_rust.rustdoc",
        "rustdoc_lookup",
        Risk.READ,
        Phase.EXPLORATION,
    ),
    ToolDeclaration(
        "crates_io_lookup",
        "rho_tools_rust.crates_io",
        "crates_io_lookup",
        Risk.NETWORK,
        Phase.EXPLORATION,
    ),
)


if __name__ == "__main__":
    write_schemas(DECLARATIONS, SCHEMAS)


__all__ = ["DECLARATIONS", "SCHEMAS"]
