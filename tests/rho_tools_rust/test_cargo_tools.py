"""cargo_check and cargo_clippy on real crates: results, details, failures and refusals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rust_crates import BUILD_SCRIPT, LEN_ZERO, TYPE_ERROR, UNUSED, needs_cargo, write_crate  # type: ignore[import-not-found]

from rho_kernel.cancel import CancelToken
from rho_kernel.config import load_config
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult
from rho_tools_rust.cargo_check import cargo_argv, cargo_check, cargo_clippy
from rho_tools_rust.plugin import rho_register_config_sections, rho_register_tools


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def check(root: Path, tool: object = cargo_check, **args: object) -> ToolResult:
    """Run the tool as the agent loop does (a `ToolError` becomes an error result)."""
    try:
        return await tool.execute(args, make_ctx(root))  # type: ignore[attr-defined,no-any-return]
    except ToolError as exc:
        return ToolResult.error(str(exc))


@needs_cargo
async def test_a_type_error_is_an_error_result_with_typed_details(
    crate: Callable[..., Path],
) -> None:
    root = crate({"src/main.rs": TYPE_ERROR})
    result = await check(root)
    assert result.is_error
    assert result.output.startswith(
        "cargo_check: 1 error, 0 warnings\n\nsrc/main.rs:2:18 error[E0308]"
    )
    [detail] = result.details
    assert detail["code"] == "E0308" and detail["span"]["line"] == 2
    assert cargo_check.outline({}, result) == "cargo_check: 1 error, 0 warnings"


@needs_cargo
async def test_warnings_alone_are_not_an_error(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": UNUSED, "build.rs": BUILD_SCRIPT})
    result = await check(root)
    assert not result.is_error
    assert result.output.startswith("cargo_check: 0 errors, 2 warnings\n")
    assert "warning: build script of demo: generated code is stale" in result.output


SNOOPING_BUILD = """fn main() {
    for name in ["OPENAI_API_KEY", "BASH_ENV"] {
        let seen = std::env::var(name).is_ok();
        println!("cargo:warning={name} seen: {seen}");
    }
}
"""


@needs_cargo
async def test_a_build_script_sees_no_secret_of_rhos_environment(
    crate: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("BASH_ENV", "/tmp/startup.sh")
    root = crate({"src/main.rs": "fn main() {}\n", "build.rs": SNOOPING_BUILD})
    result = await check(root)
    assert "build script of demo: OPENAI_API_KEY seen: false" in result.output
    assert "build script of demo: BASH_ENV seen: false" in result.output


@needs_cargo
async def test_clippy_reports_lints(crate: Callable[..., Path]) -> None:
    root = crate({"src/main.rs": LEN_ZERO})
    result = await check(root, cargo_clippy)
    assert "src/main.rs:3:8 warning[clippy::len_zero]: length comparison to zero" in result.output
    assert cargo_clippy.outline({}, result) == "cargo_clippy: 0 errors, 2 warnings"


@needs_cargo
async def test_a_clean_crate_says_the_build_finished(crate: Callable[..., Path]) -> None:
    result = await check(crate({"src/main.rs": "fn main() {}\n"}))
    assert (result.output, result.is_error) == (
        "cargo_check: no errors or warnings (the build finished)",
        False,
    )


@needs_cargo
async def test_a_broken_manifest_returns_cargos_stderr(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text("[package\nname = 1\n")
    result = await check(tmp_path.resolve())
    assert result.is_error
    assert result.output.startswith("cargo_check: the build failed\n")
    assert "Cargo.toml" in result.output and "TOML" in result.output.upper()


@needs_cargo
async def test_path_selects_the_crate_and_paths_stay_project_relative(tmp_path: Path) -> None:
    project = tmp_path.resolve()
    write_crate(project / "tools" / "gen", {"src/main.rs": TYPE_ERROR})
    result = await check(project, path="tools/gen/src/main.rs")
    assert "tools/gen/src/main.rs:2:18 error[E0308]" in result.output


@needs_cargo
async def test_package_selects_one_member_of_a_workspace(tmp_path: Path) -> None:
    project = tmp_path.resolve()
    (project / "Cargo.toml").write_text('[workspace]\nmembers = ["a", "b"]\nresolver = "2"\n')
    write_crate(project / "a", {"src/lib.rs": "pub fn f() {\n    let in_a = 1;\n}\n"}, "a")
    write_crate(project / "b", {"src/lib.rs": "pub fn g() {\n    let in_b = 1;\n}\n"}, "b")
    both = await check(project)
    assert "a/src/lib.rs:2:9" in both.output and "b/src/lib.rs:2:9" in both.output
    only_b = await check(project, package="b")
    assert "b/src/lib.rs:2:9" in only_b.output and "in_a" not in only_b.output


@needs_cargo
async def test_all_targets_also_checks_the_tests(crate: Callable[..., Path]) -> None:
    source = (
        'fn main() {}\n\n#[cfg(test)]\nmod tests {\n    fn f() -> u32 {\n        "a"\n    }\n}\n'
    )
    root = crate({"src/main.rs": source})
    assert not (await check(root)).is_error  # tests are not built by a plain check
    result = await check(root, all_targets=True)
    assert result.is_error and "src/main.rs:6:9 error[E0308]" in result.output


@needs_cargo
async def test_a_member_crate_opened_as_the_project_gets_project_relative_paths(
    tmp_path: Path,
) -> None:
    workspace = tmp_path.resolve()
    (workspace / "Cargo.toml").write_text('[workspace]\nmembers = ["member"]\nresolver = "2"\n')
    project = write_crate(workspace / "member", {"src/main.rs": TYPE_ERROR}, "member")
    result = await check(project)  # cargo's spans say member/src/main.rs
    assert "\n\nsrc/main.rs:2:18 error[E0308]" in result.output
    assert result.details[0]["span"]["file"] == "src/main.rs"


@needs_cargo
async def test_a_member_crate_opened_as_the_project_builds_inside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CARGO_TARGET_DIR")
    workspace = tmp_path.resolve()
    (workspace / "Cargo.toml").write_text('[workspace]\nmembers = ["member"]\nresolver = "2"\n')
    project = write_crate(workspace / "member", {"src/main.rs": "fn main() {}\n"}, "member")
    result = await check(project)
    assert result.output.startswith("cargo_check: no errors or warnings"), result.output
    assert (project / "target").is_dir() and not (workspace / "target").exists()


@pytest.mark.parametrize(
    "package",
    [
        "--config=build.rustc='/bin/sh'",
        "-p",
        "a;touch pwned",
        "$(touch pwned)",
        "a b",
        "x" * 65,
        "a\0b",
    ],
)
async def test_hostile_package_names_are_refused(crate: Callable[..., Path], package: str) -> None:
    root = crate({"src/main.rs": "fn main() {}\n"})
    result = await check(root, package=package)
    assert result.is_error and "invalid package name" in result.output
    assert not (root / "pwned").exists() and not (root / "target").exists()


@pytest.mark.parametrize(
    "path", ["../outside", "/etc", "/tmp", "src/../../outside", "a\0b", "missing"]
)
async def test_paths_outside_the_project_or_missing_are_refused(tmp_path: Path, path: str) -> None:
    write_crate(tmp_path / "outside", {"src/main.rs": TYPE_ERROR})
    project = write_crate(tmp_path / "project", {"src/main.rs": "fn main() {}\n"})
    result = await check(project, path=path)
    assert result.is_error
    assert "E0308" not in result.output and result.output.startswith("cargo_check: ")


async def test_a_project_without_cargo_toml_asks_for_a_path(tmp_path: Path) -> None:
    result = await check(tmp_path.resolve())
    assert result.is_error and "the project root has no Cargo.toml" in result.output


async def test_a_missing_cargo_is_a_clear_error(
    crate: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = crate({"src/main.rs": "fn main() {}\n"})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = await check(root)
    assert result.is_error
    assert (
        result.output
        == "cargo_check: cargo is not installed: install Rust with rustup, https://rustup.rs"
    )


def test_all_targets_adds_the_flag() -> None:
    assert cargo_argv("check", None, all_targets=True)[-1] == "--all-targets"


def test_the_argv_keeps_the_package_in_one_argument() -> None:
    assert cargo_argv("clippy", "core") == [
        "cargo",
        "clippy",
        "--message-format=json",
        "--color=never",
        "--package=core",
    ]


def test_the_plugin_contributes_the_rust_tools_in_order_with_their_risks(
    crate: Callable[..., Path], tmp_path: Path
) -> None:
    root = crate({"src/main.rs": ""})
    config = load_config(root, home=tmp_path / "home", sections=rho_register_config_sections())
    tools = rho_register_tools(config=config, root=root)
    assert [t.name for t in tools] == [
        "cargo_check",
        "cargo_clippy",
        "rustc_explain",
        "cargo_test",
        "cargo_fix",
        "rustdoc_lookup",
        "crates_io_lookup",
    ]
    by_name = {t.name: t for t in tools}
    for name in ("cargo_check", "cargo_clippy", "cargo_test"):
        t = by_name[name]
        assert (t.risk, t.confined_risk, t.phase) == (
            Risk.DESTRUCTIVE,
            Risk.READ,
            Phase.VERIFICATION,
        )
        assert t.runs_processes
    assert (by_name["cargo_fix"].risk, by_name["cargo_fix"].confined_risk) == (
        Risk.DESTRUCTIVE,
        Risk.WRITE,
    )
    assert by_name["rustc_explain"].risk == Risk.READ
    assert by_name["crates_io_lookup"].risk == Risk.NETWORK
