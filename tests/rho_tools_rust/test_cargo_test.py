"""cargo_test: counts and failures from real test runs (text on stable, JSON on nightly),
filters, build failures, refused arguments, a missing toolchain."""

from __future__ import annotations

from pathlib import Path

import pytest
from rust_crates import needs_cargo, needs_nightly  # type: ignore[import-not-found]

from rho_kernel.tools import Phase, Risk
from rho_tools_rust.cargo_test import build_argv, cargo_test

#: libtest speaks text on stable and JSON on nightly (where nightly is installed).
STABLE_AND_NIGHTLY = [
    pytest.param(False, id="text"),
    pytest.param(True, id="json", marks=needs_nightly),
]

LIB = """\
pub fn add(a: u32, b: u32) -> u32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 4);
    }

    #[test]
    #[ignore]
    fn slow() {}

    #[test]
    fn shouts() {
        println!("some output");
        panic!("boom\\nsecond line");
    }
}
"""

ADDS_FAILURE = (
    "FAILED tests::adds — assertion `left == right` failed\n  left: 3\n right: 4\n"
    "  at src/lib.rs:16:9"
)
SHOUTS_FAILURE = "FAILED tests::shouts — boom\nsecond line\n  at src/lib.rs:26:9"


@needs_cargo
@pytest.mark.parametrize("nightly", STABLE_AND_NIGHTLY)
async def test_failures_are_errors_with_counts_and_panic_messages(
    make_crate, call_tool, nightly: bool
) -> None:
    root = make_crate({"src/lib.rs": LIB}, nightly=nightly)
    result = await call_tool(cargo_test, root)
    assert result.is_error
    lines = result.output.split("\n")
    assert lines[0] == "cargo_test: 1 passed, 2 failed, 1 ignored"
    assert "\n".join(lines[1:]) == ADDS_FAILURE + "\n" + SHOUTS_FAILURE
    assert "some output" not in result.output
    assert result.details["source"] == ("json" if nightly else "text")
    assert cargo_test.outline({}, result) == "cargo_test: 1 passed, 2 failed"


@needs_cargo
async def test_panic_places_of_a_member_crate_opened_as_the_project_are_project_relative(
    tmp_path: Path, make_crate, call_tool
) -> None:
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["crate"]\nresolver = "2"\n')
    root = make_crate({"src/lib.rs": LIB})  # libtest says crate/src/lib.rs:16:9
    result = await call_tool(cargo_test, root, test_name="adds")
    assert result.output.endswith("\n  at src/lib.rs:16:9")
    assert result.details["failures"][0]["location"] == "src/lib.rs:16:9"


@needs_cargo
async def test_all_passing_is_not_an_error_and_counts_every_target(make_crate, call_tool) -> None:
    root = make_crate(
        {
            "src/lib.rs": "/// ```\n/// assert_eq!(demo::one(), 1);\n/// ```\n"
            "pub fn one() -> u32 { 1 }\n#[test]\nfn unit() {}\n",
            "tests/it.rs": "#[test]\nfn integration() { assert_eq!(demo::one(), 1); }\n",
        }
    )
    result = await call_tool(cargo_test, root)
    assert (result.output, result.is_error) == ("cargo_test: 3 passed, 0 failed, 0 ignored", False)


@needs_cargo
@pytest.mark.parametrize("nightly", STABLE_AND_NIGHTLY)
async def test_test_name_filters(make_crate, call_tool, nightly: bool) -> None:
    root = make_crate({"src/lib.rs": LIB}, nightly=nightly)
    result = await call_tool(cargo_test, root, test_name="tests::adds")
    assert result.is_error
    assert result.output == (
        "cargo_test: 0 passed, 1 failed, 0 ignored, 3 filtered out\n" + ADDS_FAILURE
    )


@needs_cargo
async def test_a_filter_matching_nothing_says_so(make_crate, call_tool) -> None:
    root = make_crate({"src/lib.rs": "#[test]\nfn unit() {}\n"})
    result = await call_tool(cargo_test, root, test_name="nothing_like_this")
    assert not result.is_error
    assert result.output == "cargo_test: 0 passed, 0 failed, 0 ignored, 1 filtered out"


@needs_cargo
async def test_a_crate_that_does_not_compile_shows_the_errors(make_crate, call_tool) -> None:
    root = make_crate({"src/lib.rs": 'pub fn n() -> u32 {\n    "text"\n}\n'})
    result = await call_tool(cargo_test, root)
    assert result.is_error
    assert result.output.startswith("cargo_test: build failed\n")
    assert "error[E0308]: mismatched types" in result.output
    assert "src/lib.rs:2:5" in result.output
    assert "Compiling" not in result.output
    assert cargo_test.outline({}, result) == "cargo_test: build failed"


@needs_cargo
async def test_package_selects_a_package_and_an_unknown_one_is_an_error(
    make_crate, call_tool
) -> None:
    root = make_crate({"src/lib.rs": "#[test]\nfn unit() {}\n"})
    result = await call_tool(cargo_test, root, package="demo")
    assert (result.output, result.is_error) == ("cargo_test: 1 passed, 0 failed, 0 ignored", False)
    missing = await call_tool(cargo_test, root, package="other")
    assert missing.is_error
    assert "other" in missing.output and "did not match any packages" in missing.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"package": "--manifest-path=/etc/Cargo.toml"}, "invalid package name"),
        ({"package": "-p"}, "invalid package name"),
        ({"package": "demo; touch pwned"}, "invalid package name"),
        ({"package": "$(touch pwned)"}, "invalid package name"),
        ({"package": "demo\n"}, "invalid package name"),
        ({"package": "a" * 65}, "invalid package name"),
        ({"test_name": "--nocapture"}, "must not start with '-'"),
        ({"test_name": "-Zunstable-options"}, "must not start with '-'"),
        ({"test_name": "a\0b"}, "must not contain NUL"),
        ({"test_name": "a\n--list"}, "must not contain NUL or line breaks"),
        ({"test_name": "x" * 201}, "longer than 200"),
    ],
)
async def test_hostile_arguments_are_refused_before_anything_runs(
    make_crate, call_tool, arguments: dict[str, str], message: str
) -> None:
    root = make_crate({"src/lib.rs": "#[test]\nfn unit() {}\n"})
    result = await call_tool(cargo_test, root, **arguments)
    assert result.is_error and result.output.startswith("cargo_test: ")
    assert message in result.output
    assert not (root / "target").exists() and not (root / "pwned").exists()


def test_the_filter_goes_after_the_separator() -> None:
    argv = build_argv("demo", "tests::x", json_output=True)
    assert argv == [
        "cargo", "test", "--no-fail-fast", "--package", "demo", "--",
        "-Z", "unstable-options", "--format", "json", "--report-time", "tests::x",
    ]  # fmt: skip


async def test_a_project_without_cargo_toml_is_a_clear_error(tmp_path: Path, call_tool) -> None:
    result = await call_tool(cargo_test, tmp_path)
    assert result.is_error
    assert result.output.startswith("cargo_test: no Cargo.toml in the project root")


async def test_a_machine_without_cargo_gets_told_what_to_install(
    make_crate, call_tool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_crate({"src/lib.rs": "#[test]\nfn unit() {}\n"})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = await call_tool(cargo_test, root)
    assert result.is_error
    assert "is not installed: install Rust with rustup, https://rustup.rs" in result.output


def test_tool_metadata() -> None:
    assert cargo_test.risk is Risk.DESTRUCTIVE and cargo_test.phase is Phase.VERIFICATION
    assert cargo_test.runs_processes
    params = cargo_test.parameters
    assert set(params["properties"]) == {"package", "test_name", "sandbox", "justification"}
    assert params.get("required", []) == []
