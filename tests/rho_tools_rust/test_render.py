"""The model-facing rendering of diagnostics: counts, per-file lines, errors first, a cap."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from rust_crates import TYPE_ERROR, UNUSED, needs_cargo, run_cargo  # type: ignore[import-not-found]

from rho_tools_rust.diagnostics import Diagnostic, Span, parse_messages
from rho_tools_rust.render import render, summary


@needs_cargo
def test_a_type_error_renders_as_one_line_with_its_primary_label(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/main.rs": TYPE_ERROR})
    diagnostics = parse_messages(run_cargo(root, "check").stdout, project_root=root)
    assert render("cargo_check", diagnostics) == (
        "cargo_check: 1 error, 0 warnings\n\n"
        "src/main.rs:2:18 error[E0308]: mismatched types — expected `u32`, found `&str`"
    )


@needs_cargo
def test_help_lines_show_the_replacement_and_skip_boilerplate_notes(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/main.rs": UNUSED})
    diagnostics = parse_messages(run_cargo(root, "check").stdout, project_root=root)
    assert render("cargo_check", diagnostics) == (
        "cargo_check: 0 errors, 1 warning\n\n"
        "src/main.rs:2:9 warning[unused_variables]: unused variable: `unused`\n"
        "    help: if this is intentional, prefix it with an underscore: `_unused`"
    )


def _at(level: str, file: str, line: int) -> Diagnostic:
    return Diagnostic(level, f"{level} {line}", None, Span(file, line, 1, line, 2, None, True))


def test_errors_come_before_warnings_and_files_are_grouped() -> None:
    diagnostics = [
        _at("warning", "src/a.rs", 1),
        _at("error", "src/b.rs", 2),
        _at("warning", "src/b.rs", 3),
    ]
    assert render("cargo_check", diagnostics) == (
        "cargo_check: 1 error, 2 warnings\n\n"
        "src/b.rs:2:1 error: error 2\nsrc/b.rs:3:1 warning: warning 3\n\n"
        "src/a.rs:1:1 warning: warning 1"
    )


@needs_cargo
def test_long_lists_are_capped_with_a_count(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": UNUSED})
    [real] = parse_messages(run_cargo(root, "check").stdout, project_root=root)
    many = [
        dataclasses.replace(
            real, message=f"unused variable: `v{i}`", level="error" if i % 7 == 0 else "warning"
        )
        for i in range(120)
    ]
    text = render("cargo_check", many)
    assert text.startswith("cargo_check: 18 errors, 102 warnings\n\n")
    assert text.endswith("\n\n… and 70 more (fix these first)")
    headlines = [line for line in text.splitlines() if line.startswith("src/")]
    assert len(headlines) == 50
    assert all(" error[" in line for line in headlines[:18])


def test_no_diagnostics_says_so() -> None:
    assert summary("cargo_clippy", []) == "cargo_clippy: no errors or warnings"
