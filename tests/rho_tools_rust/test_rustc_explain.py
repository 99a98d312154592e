"""rustc_explain: a real code explained, case normalised, unknown and malformed codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from rust_crates import hostile_toolchain, needs_cargo, needs_rustup  # type: ignore[import-not-found]

from rho_kernel.tools import Phase, Risk
from rho_tools_rust.rustc_explain import rustc_explain
from rho_tools_rust.rustup import NO_DEFAULT, forget_toolchain


@needs_cargo
@pytest.mark.parametrize("code", ["E0308", "e0308", " E0308 "])
async def test_a_real_code_is_explained(tmp_path: Path, call_tool, code: str) -> None:
    result = await call_tool(rustc_explain, tmp_path, error_code=code)
    assert not result.is_error
    assert "Expected type did not match the received type." in result.output
    assert rustc_explain.outline({"error_code": code}, result).startswith("rustc_explain: ")


@needs_cargo
async def test_an_unknown_code_is_a_clear_error(tmp_path: Path, call_tool) -> None:
    result = await call_tool(rustc_explain, tmp_path, error_code="E9999")
    assert (result.output, result.is_error) == (
        "rustc_explain: E9999 is not a known error code",
        True,
    )


@pytest.mark.parametrize(
    "code", ["--version", "E0308 --help", "E030", "E03088", "0308", "E0308;id", "E０３０８", ""]
)
async def test_malformed_codes_are_refused(tmp_path: Path, call_tool, code: str) -> None:
    result = await call_tool(rustc_explain, tmp_path, error_code=code)
    assert result.is_error
    assert result.output.startswith("rustc_explain: invalid error code")


async def test_a_machine_without_rustc_gets_told_what_to_install(
    tmp_path: Path, call_tool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = await call_tool(rustc_explain, tmp_path, error_code="E0308")
    assert result.output == (
        "rustc_explain: rustc is not installed: install Rust with rustup, https://rustup.rs"
    )


def test_tool_metadata() -> None:
    assert rustc_explain.risk is Risk.READ and rustc_explain.phase is Phase.EXPLORATION
    assert rustc_explain.parameters["required"] == ["error_code"]


@needs_cargo
async def test_a_projects_toolchain_file_does_not_choose_the_rustc_that_runs(
    tmp_path: Path, call_tool
) -> None:
    # rustc_explain runs without asking, so a cloned repository must not pick its program.
    project, marker = tmp_path / "project", tmp_path / "ran"
    project.mkdir()
    hostile_toolchain(project, marker)
    result = await call_tool(rustc_explain, project, error_code="E0308")
    assert "Expected type did not match the received type." in result.output
    assert not marker.exists()


@needs_rustup
async def test_no_default_toolchain_is_a_clear_error(
    tmp_path: Path, call_tool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUSTUP_HOME", str(tmp_path / "empty-rustup"))
    forget_toolchain()
    result = await call_tool(rustc_explain, tmp_path, error_code="E0308")
    assert (result.output, result.is_error) == (f"rustc_explain: {NO_DEFAULT}", True)
