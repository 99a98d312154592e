"""The `cargo_check` and `cargo_clippy` tools: a build's compiler diagnostics, typed.

cargo runs with `--message-format=json` as an argument vector (never through a shell),
through the kernel's process runner (OS sandbox, timeout, abort). The JSON messages become
`Diagnostic`s kept in the result's details; the model reads a compact rendering.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from rho_kernel import ProcessResult
from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult, tool
from rho_tools_rust.cargo_args import check_package
from rho_tools_rust.cargo_runner import ended_note, run_toolchain, stderr_tail
from rho_tools_rust.crate import crate_dir, workspace_root
from rho_tools_rust.diagnostics import (
    Diagnostic,
    details_of,
    parse_build_script_warnings,
    parse_messages,
)
from rho_tools_rust.render import render, summary

#: cargo's JSON is verbose (each message carries its rendered text): keep all of it.
MAX_OUTPUT_BYTES = 64 * 1024 * 1024


def cargo_argv(subcommand: str, package: str | None, all_targets: bool = False) -> list[str]:
    """`cargo <subcommand> --message-format=json --color=never [--package=P]
    [--all-targets]`."""
    argv = ["cargo", subcommand, "--message-format=json", "--color=never"]
    if package is not None:
        argv.append(f"--package={package}")
    if all_targets:
        argv.append("--all-targets")
    return argv


def build_result(
    tool_name: str, result: ProcessResult, diagnostics: list[Diagnostic], timeout: int
) -> ToolResult:
    """The tool result for a finished (or stopped) cargo run and its diagnostics."""
    details = details_of(diagnostics)
    text = render(tool_name, diagnostics)
    has_error = any(d.is_error for d in diagnostics)
    if note := ended_note(tool_name, result, timeout):
        return ToolResult.error(f"{text}\n\n{note}", details)
    if not result.ok and not has_error:
        tail = stderr_tail(result.stderr) or f"cargo exited with status {result.returncode}"
        return ToolResult.error(f"{tool_name}: the build failed\n{tail}", details)
    if result.ok and not diagnostics:
        text += " (the build finished)"
    return ToolResult(text, is_error=has_error, details=details)


async def run_diagnostics(
    tool_name: str,
    subcommand: str,
    package: str | None,
    path: str | None,
    ctx: ToolContext,
    all_targets: bool = False,
) -> ToolResult:
    """Run `cargo <subcommand>` on the crate at `path` (default: the project root) and turn
    its messages into a result."""
    try:
        package = check_package(tool_name, package)
        crate = crate_dir(tool_name, ctx, path)
        argv = cargo_argv(subcommand, package, all_targets)
        result = await run_toolchain(
            ctx, tool_name, argv, cwd=crate, max_output_bytes=MAX_OUTPUT_BYTES
        )
    except ToolError as exc:
        return ToolResult.error(str(exc))
    timeout = ctx.config.shell.max_timeout_secs
    # Megabytes of JSON for a large build: parsed off the event loop.
    return await asyncio.to_thread(_read_result, tool_name, result, crate, ctx.root.path, timeout)


def _read_result(
    tool_name: str, result: ProcessResult, crate: Path, project: Path, timeout: int
) -> ToolResult:
    diagnostics = parse_messages(
        result.stdout, project_root=project, workspace_root=workspace_root(crate)
    )
    diagnostics += parse_build_script_warnings(result.stderr)
    return build_result(tool_name, result, diagnostics, timeout)


def _outline(arguments: dict[str, Any], result: ToolResult, tool_name: str) -> str:
    counted = [_Counted(item) for item in result.details or ()]
    if result.is_error and not any(item.is_error for item in counted):
        return f"{tool_name}: failed ({result.output.splitlines()[0][:120]})"
    return summary(tool_name, counted)


class _Counted:
    """Enough of a `Diagnostic` (from its dict) for `summary` to count it."""

    def __init__(self, item: Any) -> None:
        self.level = str(item.get("level", "")) if isinstance(item, dict) else ""
        self.is_error = self.level.startswith("error")


def _check_outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return _outline(arguments, result, "cargo_check")


def _clippy_outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return _outline(arguments, result, "cargo_clippy")


@tool(
    risk=Risk.DESTRUCTIVE,
    phase=Phase.VERIFICATION,
    outline=_check_outline,
    runs_processes=True,
    confined_risk=Risk.READ,  # confined, a build cannot write outside the project
)
async def cargo_check(
    package: str | None = None,
    path: str | None = None,
    all_targets: bool = False,
    sandbox: Literal["network", "unconfined"] | None = None,
    justification: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Type-check a Rust crate with `cargo check` and return its compiler diagnostics.

    The result starts with the counts (`cargo_check: 2 errors, 1 warning`), then one line
    per diagnostic grouped per file, errors first: `src/main.rs:4:13 error[E0308]:
    mismatched types — expected `u32`, found `&str``, with help and notes (and suggested
    replacements) indented under it. At most 50 are shown. Building runs the crate's build
    scripts and procedural macros.

    Args:
        package: Only this package of the workspace (`--package`), e.g. `core`.
        path: A file or folder of the crate to check (the nearest Cargo.toml above it); default: the project root.
        all_targets: Also check the tests, examples and benches (`--all-targets`); default: the library and binaries only.
        sandbox: Only when the sandbox stopped the build and it truly needs more (e.g. to fetch dependencies): "network" (network access) or "unconfined" (no sandbox) for this one call. The user is always asked; give a justification.
        justification: Why the build must leave the sandbox (required with sandbox; shown to the user).
    """
    return await run_diagnostics("cargo_check", "check", package, path, ctx, all_targets)


@tool(
    risk=Risk.DESTRUCTIVE,
    phase=Phase.VERIFICATION,
    outline=_clippy_outline,
    runs_processes=True,
    confined_risk=Risk.READ,  # confined, a build cannot write outside the project
)
async def cargo_clippy(
    package: str | None = None,
    path: str | None = None,
    all_targets: bool = False,
    sandbox: Literal["network", "unconfined"] | None = None,
    justification: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Lint a Rust crate with `cargo clippy` and return its diagnostics (compiler errors and
    clippy lints such as `clippy::len_zero`).

    The result starts with the counts (`cargo_clippy: 0 errors, 3 warnings`), then one line
    per diagnostic grouped per file, errors first, with help and suggested replacements
    indented under it. At most 50 are shown. Building runs the crate's build scripts and
    procedural macros.

    Args:
        package: Only this package of the workspace (`--package`), e.g. `core`.
        path: A file or folder of the crate to lint (the nearest Cargo.toml above it); default: the project root.
        all_targets: Also lint the tests, examples and benches (`--all-targets`); default: the library and binaries only.
        sandbox: Only when the sandbox stopped the build and it truly needs more (e.g. to fetch dependencies): "network" (network access) or "unconfined" (no sandbox) for this one call. The user is always asked; give a justification.
        justification: Why the build must leave the sandbox (required with sandbox; shown to the user).
    """
    return await run_diagnostics("cargo_clippy", "clippy", package, path, ctx, all_targets)


__all__ = [
    "build_result",
    "cargo_argv",
    "cargo_check",
    "cargo_clippy",
    "run_diagnostics",
]
