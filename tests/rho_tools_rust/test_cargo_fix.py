"""cargo_fix: real fixes reported by file and count, nothing to fix, a crate that does not
compile, refused arguments."""

from __future__ import annotations

import pytest
from rust_crates import needs_cargo  # type: ignore[import-not-found]

from rho_kernel.tools import Phase, Risk
from rho_tools_rust.cargo_fix import build_succeeded, cargo_fix, parse_fixed

FIXABLE = """\
use std::collections::HashMap;

fn main() {
    let mut x = 1;
    println!("{x}");
}
"""


@needs_cargo
async def test_fixable_warnings_are_fixed_and_reported(make_crate, call_tool) -> None:
    root = make_crate({"src/main.rs": FIXABLE})
    result = await call_tool(cargo_fix, root)
    assert (result.output, result.is_error) == (
        "cargo_fix: 2 fixes in 1 file\n  src/main.rs (2 fixes)",
        False,
    )
    fixed = (root / "src/main.rs").read_text()
    assert "HashMap" not in fixed and "let x = 1;" in fixed
    assert result.details["fixes"] == {"src/main.rs": 2}
    assert cargo_fix.outline({}, result) == "cargo_fix: 2 fixes in 1 file"


@needs_cargo
async def test_a_clean_crate_has_nothing_to_fix(make_crate, call_tool) -> None:
    root = make_crate({"src/main.rs": 'fn main() {\n    println!("hi");\n}\n'})
    result = await call_tool(cargo_fix, root, package="demo")
    assert (result.output, result.is_error) == ("cargo_fix: nothing to fix", False)


@needs_cargo
async def test_warnings_it_cannot_fix_are_counted(make_crate, call_tool) -> None:
    root = make_crate({"src/main.rs": "fn unused() {}\n\nfn main() {}\n"})
    result = await call_tool(cargo_fix, root)
    assert result.output == "cargo_fix: nothing to fix\n1 warning left that cargo fix cannot fix"
    assert not result.is_error


@needs_cargo
async def test_a_crate_that_does_not_compile_is_an_error_with_its_errors(
    make_crate, call_tool
) -> None:
    root = make_crate({"src/main.rs": 'fn main() {\n    let y: u32 = "a";\n}\n'})
    result = await call_tool(cargo_fix, root)
    assert result.is_error
    assert result.output.startswith("cargo_fix: the crate does not compile; nothing was fixed\n")
    assert "error[E0308]: mismatched types" in result.output
    assert "src/main.rs:2:18" in result.output


@pytest.mark.parametrize(
    "package", ["--manifest-path=/tmp/x/Cargo.toml", "-Zbuild-std", "demo && touch pwned", "a/b"]
)
async def test_hostile_package_names_are_refused(make_crate, call_tool, package: str) -> None:
    root = make_crate({"src/main.rs": FIXABLE})
    result = await call_tool(cargo_fix, root, package=package)
    assert result.is_error and result.output.startswith("cargo_fix: invalid package name")
    assert (root / "src/main.rs").read_text() == FIXABLE
    assert not (root / "target").exists()


def test_fixed_lines_are_summed_per_file() -> None:
    stderr = (
        "    Checking demo v0.1.0\n       Fixed src/lib.rs (1 fix)\n"
        "       Fixed src/main.rs (3 fixes)\n       Fixed src/lib.rs (2 fixes)\n"
    )
    assert parse_fixed(stderr) == {"src/lib.rs": 3, "src/main.rs": 3}


def test_tool_metadata() -> None:
    assert (cargo_fix.risk, cargo_fix.confined_risk) == (Risk.DESTRUCTIVE, Risk.WRITE)
    assert cargo_fix.phase is Phase.EXECUTION
    assert set(cargo_fix.parameters["properties"]) == {"package", "sandbox", "justification"}


def test_a_build_finished_line_nested_past_all_reason_is_skipped() -> None:
    deep = '{"reason": "build-finished", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert build_succeeded(deep + '\n{"reason": "build-finished", "success": true}') is True
    assert build_succeeded(deep) is None
