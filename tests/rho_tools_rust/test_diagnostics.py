"""Parsing cargo's JSON messages, captured from the real toolchain, into diagnostics."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rust_crates import (  # type: ignore[import-not-found]
    BUILD_SCRIPT,
    LEN_ZERO,
    TYPE_ERROR,
    UNUSED,
    needs_cargo,
    run_cargo,
    write_crate,
)

from rho_tools_rust.diagnostics import (
    Diagnostic,
    Span,
    Suggestion,
    parse_build_script_warnings,
    parse_messages,
)


@needs_cargo
def test_a_type_error_becomes_one_typed_error_without_the_summary_notes(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/main.rs": TYPE_ERROR})
    done = run_cargo(root, "check")
    assert done.returncode != 0
    [error] = parse_messages(done.stdout, project_root=root, workspace_root=root)
    assert (error.level, error.code, error.message) == ("error", "E0308", "mismatched types")
    assert error.span == Span(
        "src/main.rs", 2, 18, 2, 21, "expected `u32`, found `&str`", is_primary=True
    )
    assert [label.label for label in error.labels] == ["expected due to this"]
    assert error.package == "demo" and error.is_error


@needs_cargo
def test_an_unused_variable_is_a_warning_with_a_machine_applicable_suggestion(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/main.rs": UNUSED})
    [warning] = parse_messages(run_cargo(root, "check").stdout, project_root=root)
    assert (warning.level, warning.code) == ("warning", "unused_variables")
    assert warning.message == "unused variable: `unused`"
    assert not warning.is_error
    [suggestion] = warning.suggestions
    assert suggestion.replacement == "_unused"
    assert suggestion.applicability == "MachineApplicable"
    assert (suggestion.span.file, suggestion.span.line, suggestion.span.column) == (
        "src/main.rs",
        2,
        9,
    )
    assert any(note.level == "help" and "underscore" in note.message for note in warning.notes)


@needs_cargo
def test_a_clippy_lint_keeps_its_code_and_suggestion(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": LEN_ZERO})
    diagnostics = parse_messages(run_cargo(root, "clippy").stdout, project_root=root)
    by_code = {d.code: d for d in diagnostics}
    lint = by_code["clippy::len_zero"]
    assert lint.span is not None and (lint.span.line, lint.span.column) == (3, 8)
    assert [s.replacement for s in lint.suggestions] == ["v.is_empty()"]


@needs_cargo
def test_a_build_script_warning_is_read_from_stderr(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": "fn main() {}\n", "build.rs": BUILD_SCRIPT})
    done = run_cargo(root, "check")
    assert parse_messages(done.stdout, project_root=root) == []
    [warning] = parse_build_script_warnings(done.stderr)
    assert warning.level == "warning" and warning.source == "build-script"
    assert warning.message == "build script of demo: generated code is stale"


@needs_cargo
def test_diagnostics_repeated_for_lib_and_test_targets_are_kept_once(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/lib.rs": "pub fn f() {\n    let unused = 1;\n}\n"})
    stdout = run_cargo(root, "check", "--all-targets").stdout
    raw = [line for line in stdout.splitlines() if '"compiler-message"' in line]
    assert len(raw) == 2  # the lib and its unit-test build report the same warning
    assert len(parse_messages(stdout, project_root=root)) == 1
    assert len(parse_messages(stdout + stdout, project_root=root)) == 1


@needs_cargo
def test_messages_about_crates_outside_the_project_are_dropped(tmp_path: Path) -> None:
    write_crate(tmp_path / "dep", {"src/lib.rs": "pub fn f() {\n    let noisy = 1;\n}\n"}, "dep")
    root = write_crate(
        tmp_path / "project",
        {"src/main.rs": UNUSED},
        extra='\n[dependencies]\ndep = { path = "../dep" }\n',
    )
    stdout = run_cargo(root, "check").stdout
    assert "noisy" in stdout  # cargo reports the path dependency's warning...
    diagnostics = parse_messages(stdout, project_root=root, workspace_root=root)
    assert [d.message for d in diagnostics] == ["unused variable: `unused`"]  # ...rho does not


@needs_cargo
def test_span_paths_become_relative_to_the_project_root(tmp_path: Path) -> None:
    project = tmp_path / "project"
    root = write_crate(project / "tools" / "gen", {"src/main.rs": UNUSED})
    stdout = run_cargo(root, "check").stdout
    [warning] = parse_messages(stdout, project_root=project.resolve(), workspace_root=root)
    assert warning.span is not None and warning.span.file == "tools/gen/src/main.rs"


@needs_cargo
def test_lines_that_are_not_compiler_messages_are_ignored(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": UNUSED})
    real = run_cargo(root, "check").stdout
    noise = "\n".join(
        [
            "Compiling demo v0.1.0",
            '{"reason": "compiler-message", "message": ',
            '{"reason": "compiler-message", "message": "not an object"}',
            '["compiler-message"]',
            '{"reason": "compiler-message", "message": {"level": "error", "spans": 7}}',
            "\ud800 garbage",
        ]
    )
    diagnostics = parse_messages(noise + "\n" + real, project_root=root)
    assert [d.code for d in diagnostics] == ["unused_variables"]


def test_summary_messages_are_dropped() -> None:
    summaries = [
        {"level": "error", "message": "aborting due to 2 previous errors", "spans": []},
        {"level": "warning", "message": "3 warnings emitted", "spans": []},
        {"level": "failure-note", "message": "For more information about this error", "spans": []},
    ]
    stdout = "\n".join(json.dumps({"reason": "compiler-message", "message": m}) for m in summaries)
    assert parse_messages(stdout) == []


def test_a_diagnostic_serialises_to_a_plain_dict() -> None:
    span = Span("src/a.rs", 1, 2, 1, 3, None, True)
    diagnostic = Diagnostic("warning", "m", "c", span, suggestions=(Suggestion("x", None, span),))
    data = diagnostic.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["span"]["file"] == "src/a.rs" and data["suggestions"][0]["replacement"] == "x"


def test_an_escaped_lone_surrogate_is_replaced_and_the_message_kept() -> None:
    message = {"level": "warning", "message": "odd name `a\ud800b`", "spans": []}
    line = json.dumps({"reason": "compiler-message", "message": message})
    assert "\\ud800" in line  # as rustc writes it: an escape, not a raw surrogate
    [warning] = parse_messages(line)
    assert warning.message == "odd name `a\ufffdb`"
    assert json.dumps(warning.to_dict(), ensure_ascii=False).encode()  # encodable as UTF-8


def test_odd_shapes_in_a_message_give_plain_values_never_a_crash() -> None:
    span = {"file_name": "src/a.rs", "line_start": 1, "is_primary": True, "label": ["x"]}
    odd = {"suggested_replacement": "y", "suggestion_applicability": {"a": 1}, **span}
    message = {"level": "warning", "message": "m", "spans": [span], "rendered": {"no": 1}}
    child = {"level": "help", "message": "h", "spans": [odd]}
    lines = [
        {"reason": "compiler-message", "package_id": ["p"], "message": message},
        {"reason": "compiler-message", "message": {**message, "children": [child]}},
    ]
    stdout = "\n".join(json.dumps(line) for line in lines)
    first, second = parse_messages(stdout)
    assert first.span is not None and first.span.label is None
    assert second.suggestions[0].applicability is None
    assert json.loads(json.dumps(second.to_dict())) == second.to_dict()


def test_a_line_nested_past_all_reason_is_skipped() -> None:
    deep = '{"reason": "compiler-message", "message": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert parse_messages(deep) == []
