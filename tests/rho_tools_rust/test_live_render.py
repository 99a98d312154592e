"""Live output of the cargo tools: the client sees diagnostics and test results rendered as
the model reads them, never cargo's or libtest's raw JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rust_crates import needs_cargo, needs_nightly  # type: ignore[import-not-found]

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Tool, ToolContext, ToolResult
from rho_tools_rust.cargo_check import cargo_check, cargo_clippy
from rho_tools_rust.cargo_fix import cargo_fix
from rho_tools_rust.cargo_test import cargo_test
from rho_tools_rust.live_render import CargoLiveLines, libtest_line

UNFIXABLE = "use std::collections::HashMap;\n\nfn unused() {}\n\nfn main() {}\n"


async def run_live(tool: Tool, root: Path, **arguments: object) -> tuple[ToolResult, str, str]:
    """Call `tool` with a client watching; return its result, live stdout and stderr."""
    seen: list[tuple[str, str]] = []

    async def sink(stream: str, text: str) -> None:
        seen.append((stream, text))

    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken(), output=sink)
    result = await tool.execute(dict(arguments), ctx)
    stdout = "".join(text for stream, text in seen if stream == "stdout")
    stderr = "".join(text for stream, text in seen if stream == "stderr")
    return result, stdout, stderr


def assert_no_json(text: str) -> None:
    assert not [line for line in text.splitlines() if line.lstrip().startswith("{")]


@needs_cargo
async def test_cargo_fix_streams_rendered_diagnostics_not_json(make_crate) -> None:
    root = make_crate({"src/main.rs": UNFIXABLE})
    result, stdout, stderr = await run_live(cargo_fix, root)
    assert result.output.startswith("cargo_fix: 1 fix in 1 file")
    assert_no_json(stdout)
    assert "src/main.rs:2:4 warning[dead_code]: function `unused` is never used" in stdout
    assert stdout.count("function `unused` is never used") == 1  # each diagnostic once
    assert "Fixed src/main.rs (1 fix)" in stderr  # cargo's own progress, as it is


@needs_cargo
@pytest.mark.parametrize("tool", [cargo_check, cargo_clippy], ids=["check", "clippy"])
async def test_cargo_check_and_clippy_stream_rendered_diagnostics(make_crate, tool: Tool) -> None:
    root = make_crate({"src/main.rs": 'fn main() {\n    let x: u32 = "a";\n}\n'})
    result, stdout, _ = await run_live(tool, root)
    assert result.is_error
    assert_no_json(stdout)
    assert "src/main.rs:2:18 error[E0308]: mismatched types" in stdout


@needs_nightly
async def test_cargo_test_on_nightly_streams_test_lines_not_json(make_crate) -> None:
    lib = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn passes() {}\n}\n"
    root = make_crate({"src/lib.rs": lib}, nightly=True)
    result, stdout, _ = await run_live(cargo_test, root)
    assert result.output.startswith("cargo_test: 1 passed")
    assert_no_json(stdout)
    assert "test tests::passes ... ok" in stdout.splitlines()
    assert "test result: ok. 1 passed; 0 failed; 0 ignored; 0 filtered out" in stdout


def test_cargo_records_are_hidden_and_other_lines_kept(tmp_path: Path) -> None:
    lines = CargoLiveLines(tmp_path, tmp_path)
    artifact = json.dumps({"reason": "compiler-artifact", "target": {"name": "demo"}})
    assert lines("stdout", artifact) is None
    assert lines("stdout", '{"reason": "build-finished", "success": true}') is None
    assert lines("stdout", "plain output") == "plain output"
    assert lines("stdout", "{not json") == "{not json"
    assert lines("stderr", artifact) == artifact  # stderr is never cargo's JSON


@pytest.mark.parametrize(
    "hostile",
    [
        '{"reason": "compiler-message", "message": ' + "[" * 100_000,
        '{"reason": "compiler-message", "message": {"level": 5, "spans": "x"}}',
        '{"reason": "compiler-message", "message": null}',
        "[" * 100_000,
        '{"type": "test", "event": "ok"}',
    ],
)
def test_broken_or_hostile_json_lines_never_raise(tmp_path: Path, hostile: str) -> None:
    shown = CargoLiveLines(tmp_path, tmp_path)("stdout", hostile)
    assert shown is None or isinstance(shown, str)


def test_libtest_events_read_as_libtest_writes_them() -> None:
    assert libtest_line({"type": "suite", "event": "started", "test_count": 1}) == (
        "running 1 test"
    )
    assert libtest_line({"type": "test", "event": "started", "name": "a"}) is None
    assert libtest_line({"type": "test", "event": "failed", "name": "a"}) == "test a ... FAILED"


def test_a_diagnostic_is_shown_once_however_often_cargo_repeats_it(tmp_path: Path) -> None:
    message = {
        "reason": "compiler-message",
        "package_id": "path+file:///x#demo@0.1.0",
        "manifest_path": str(tmp_path / "Cargo.toml"),
        "message": {
            "level": "warning",
            "message": "unused variable: `x`",
            "code": {"code": "unused_variables"},
            "rendered": "warning: unused variable",
            "spans": [
                {"file_name": "src/main.rs", "line_start": 2, "line_end": 2,
                 "column_start": 9, "column_end": 10, "is_primary": True, "label": None}
            ],
            "children": [],
        },
    }  # fmt: skip
    lines = CargoLiveLines(tmp_path, tmp_path)
    line = json.dumps(message)
    shown = lines("stdout", line)
    assert shown == "src/main.rs:2:9 warning[unused_variables]: unused variable: `x`"
    assert lines("stdout", line) is None
    assert lines("stdout", json.dumps({**message, "target": {"kind": ["test"]}})) is None
