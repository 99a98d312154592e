"""The `cargo_test` tool: run the crate's tests and report counts and each failure.

Where the toolchain is nightly, libtest reports JSON events (`-Z unstable-options --format
json --report-time`); elsewhere its human output is read. Either way the model gets a
count line, then each failing test with its panic message, and the call is an error when a
test fails or the tests do not build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from rho_kernel import ProcessResult
from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult, tool
from rho_tools_rust.cargo_args import check_package, check_test_name
from rho_tools_rust.cargo_runner import ended_note, require_manifest, run_toolchain, stderr_tail
from rho_tools_rust.crate import workspace_root
from rho_tools_rust.diagnostics import project_relative
from rho_tools_rust.libtest import TestReport, parse_json, parse_text

NAME = "cargo_test"
#: Failures shown in full; the rest are counted.
MAX_FAILURES_SHOWN = 20
JSON_FLAGS = ("-Z", "unstable-options", "--format", "json", "--report-time")


async def is_nightly(ctx: ToolContext) -> bool:
    """Whether the toolchain that cargo uses in the project root is a nightly (its libtest
    then accepts `--format json`). Asked of `rustc -vV` on each call: the project may pin
    its toolchain (rust-toolchain.toml)."""
    result = await run_toolchain(ctx, NAME, ["rustc", "-vV"], live=False, max_output_bytes=65536)
    for line in result.stdout.splitlines():
        if line.startswith("release:"):
            return "nightly" in line or line.rstrip().endswith("-dev")
    return False


def build_argv(package: str | None, test_name: str | None, json_output: bool) -> list[str]:
    """The `cargo test` argv: every test binary runs (`--no-fail-fast`); the libtest
    options and the name filter go after `--`."""
    argv = ["cargo", "test", "--no-fail-fast"]
    if package is not None:
        argv += ["--package", package]
    argv.append("--")
    if json_output:
        argv += JSON_FLAGS
    if test_name is not None:
        argv.append(test_name)
    return argv


def summary(report: TestReport) -> str:
    """`cargo_test: P passed, F failed, I ignored` (and how many were filtered out)."""
    line = f"{NAME}: {report.passed} passed, {report.failed} failed, {report.ignored} ignored"
    if report.filtered_out:
        line += f", {report.filtered_out} filtered out"
    return line


def render_failures(report: TestReport) -> list[str]:
    """One block per failed test, by name: `FAILED name — message` and where it panicked."""
    blocks = []
    ordered = sorted(report.failures, key=lambda failure: failure.name)
    for failure in ordered[:MAX_FAILURES_SHOWN]:
        first, _, more = failure.message.partition("\n")
        block = f"FAILED {failure.name}" + (f" — {first}" if first else "")
        if more:
            block += "\n" + more
        if failure.location:
            block += f"\n  at {failure.location}"
        blocks.append(block)
    hidden = len(report.failures) - MAX_FAILURES_SHOWN
    if hidden > 0:
        blocks.append(f"… and {hidden} more failed tests")
    return blocks


def _read_report(stdout: str, json_output: bool) -> TestReport | None:
    report = parse_json(stdout) if json_output else None
    return report if report is not None else parse_text(stdout)


def _result(
    result: ProcessResult, report: TestReport | None, test_name: str | None, timeout: int
) -> ToolResult:
    failed = not result.ok or (report is not None and report.failed > 0)
    lines: list[str] = []
    if report is None or not report.ran_anything:
        if result.ok:
            lines.append(f"{NAME}: 0 passed, 0 failed, 0 ignored")
            lines.append(
                f"no test matched {test_name!r}" if test_name else "the crate has no tests"
            )
        elif "could not compile" in result.stderr:
            lines += [f"{NAME}: build failed", stderr_tail(result.stderr)]
        else:
            lines += [f"{NAME}: cargo test failed (exit {result.returncode})"]
            lines.append(stderr_tail(result.stderr))
    else:
        lines.append(summary(report))
        lines += render_failures(report)
        if not result.ok and report.failed == 0:
            lines.append(f"cargo test exited with {result.returncode}:")
            lines.append(stderr_tail(result.stderr, lines=20))
    if note := ended_note(NAME, result, timeout):
        lines.append(note)
    details: dict[str, Any] = report.as_details() if report is not None else {}
    details["exit_code"] = result.exit_code
    return ToolResult("\n".join(line for line in lines if line), is_error=failed, details=details)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    details = result.details if isinstance(result.details, dict) else {}
    if "passed" in details:
        return f"{NAME}: {details['passed']} passed, {details['failed']} failed"
    first = result.output.split("\n", 1)[0]
    return first if first.startswith(f"{NAME}:") else f"{NAME}: {first}"[:200]


@tool(
    name=NAME,
    risk=Risk.DESTRUCTIVE,
    phase=Phase.VERIFICATION,
    outline=_outline,
    runs_processes=True,
    confined_risk=Risk.READ,  # confined, a build cannot write outside the project
)
async def cargo_test(
    package: str | None = None,
    test_name: str | None = None,
    sandbox: Literal["network", "unconfined"] | None = None,
    justification: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Run the Rust crate's tests (`cargo test`) and report how many passed, failed and
    were ignored, with each failing test's name and panic message.

    Every test target runs (unit, integration and doc tests). The result is an error when a
    test fails or the tests do not compile (the compiler's errors are shown). Building runs
    the repository's code (build scripts, proc macros, the tests themselves).

    Args:
        package: Only this workspace package (`cargo test --package NAME`).
        test_name: Run only tests whose name contains this text, e.g. `tests::parses`.
        sandbox: Only when the sandbox stopped the build and it truly needs more (e.g. to fetch dependencies): "network" (network access) or "unconfined" (no sandbox) for this one call. The user is always asked; give a justification.
        justification: Why the build must leave the sandbox (required with sandbox; shown to the user).
    """
    try:
        package = check_package(NAME, package)
        test_name = check_test_name(NAME, test_name)
        require_manifest(ctx, NAME)
        json_output = await is_nightly(ctx)
        argv = build_argv(package, test_name, json_output)
        result = await run_toolchain(ctx, NAME, argv)
    except ToolError as exc:
        return ToolResult.error(str(exc))
    report = _read_report(result.stdout, json_output)
    if report is not None:
        _relocate(report, ctx.root.path)
    return _result(result, report, test_name, ctx.config.shell.max_timeout_secs)


def _relocate(report: TestReport, project: Path) -> None:
    """Panic places (`member/src/lib.rs:3:5`, relative to the workspace root) made
    relative to the project root."""
    workspace = workspace_root(project)
    for failure in report.failures:
        if failure.location and failure.location.count(":") >= 2:
            path, line, column = failure.location.rsplit(":", 2)
            shown = project_relative(path, workspace, project)
            failure.location = f"{shown}:{line}:{column}"


__all__ = ["build_argv", "cargo_test", "is_nightly", "render_failures", "summary"]
