"""The `cargo_fix` tool: apply the compiler's machine-applicable suggestions and report
which files changed and how many fixes each got.

cargo names each file it rewrote on stderr (`Fixed src/main.rs (2 fixes)`); the messages
the compiler still gives afterwards come as JSON on stdout (`--message-format=json`) and
are read as `cargo_check` reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult, tool
from rho_tools_rust.cargo_args import check_package
from rho_tools_rust.cargo_runner import ended_note, require_manifest, run_toolchain, stderr_tail
from rho_tools_rust.crate import workspace_root
from rho_tools_rust.diagnostics import Diagnostic, parse_messages
from rho_tools_rust.render import diagnostic_lines

NAME = "cargo_fix"
_FIXED = re.compile(r"^\s*Fixed (?P<file>.+) \((?P<count>\d+) fix(?:es)?\)\s*$")
#: Compiler errors shown in full when the crate does not build.
MAX_ERRORS_SHOWN = 10
_FAILED_TO_APPLY = "failed to automatically apply fixes"


@dataclass(slots=True)
class FixOutcome:
    """What a `cargo fix` run did: fixes per file, the diagnostics left, whether it built."""

    fixes: dict[str, int] = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: int = 0
    build_ok: bool | None = None

    @property
    def total(self) -> int:
        """All fixes applied."""
        return sum(self.fixes.values())


def parse_fixed(stderr: str) -> dict[str, int]:
    """`{file: fixes}` from cargo's `Fixed FILE (N fixes)` lines (a file named twice, for
    two targets, adds up)."""
    fixes: dict[str, int] = {}
    for line in stderr.splitlines():
        if match := _FIXED.match(line):
            fixes[match.group("file")] = fixes.get(match.group("file"), 0) + int(
                match.group("count")
            )
    return fixes


def read_messages(stdout: str, project: Path, outcome: FixOutcome) -> None:
    """Read cargo's JSON messages into `outcome`: the compiler errors and the number of
    warnings left (about the project's crates, each once), and whether the build succeeded."""
    diagnostics = parse_messages(
        stdout, project_root=project, workspace_root=workspace_root(project)
    )
    outcome.errors = [d for d in diagnostics if d.is_error]
    outcome.warnings = sum(1 for d in diagnostics if d.level == "warning")
    outcome.build_ok = build_succeeded(stdout)


def build_succeeded(stdout: str) -> bool | None:
    """cargo's `build-finished` verdict (None when it sent none: it stopped before)."""
    for line in reversed(stdout.split("\n")):
        if '"build-finished"' not in line:
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and record.get("reason") == "build-finished":
            return record.get("success") is True
    return None


def render(outcome: FixOutcome) -> list[str]:
    """The model's text: the fix count and the files, or that there was nothing to fix."""
    if not outcome.fixes:
        lines = [f"{NAME}: nothing to fix"]
    else:
        files = len(outcome.fixes)
        lines = [
            f"{NAME}: {_plural(outcome.total, 'fix', 'fixes')} in {_plural(files, 'file', 'files')}"
        ]
        lines += [f"  {name} ({_plural(n, 'fix', 'fixes')})" for name, n in outcome.fixes.items()]
    if outcome.warnings:
        lines.append(
            f"{_plural(outcome.warnings, 'warning', 'warnings')} left that cargo fix cannot fix"
        )
    return lines


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _build_errors(outcome: FixOutcome, stderr: str) -> list[str]:
    if not outcome.errors:
        return [stderr_tail(stderr)]
    shown = outcome.errors[:MAX_ERRORS_SHOWN]
    hidden = len(outcome.errors) - len(shown)
    lines = [line for error in shown for line in diagnostic_lines(error)]
    return [*lines, *([f"… and {hidden} more errors"] if hidden > 0 else [])]


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return result.output.split("\n", 1)[0][:200]


@tool(
    name=NAME,
    risk=Risk.DESTRUCTIVE,
    phase=Phase.EXECUTION,
    outline=_outline,
    runs_processes=True,
    # Fixing builds the crate (build scripts, procedural macros): unconfined, that is
    # running the repository's code; confined, what is left is editing the sources.
    confined_risk=Risk.WRITE,
)
async def cargo_fix(
    package: str | None = None,
    sandbox: Literal["network", "unconfined"] | None = None,
    justification: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Apply the compiler's machine-applicable suggestions to the Rust crate (`cargo fix`):
    unused imports, needless `mut` and the like. Reports the files changed and how many
    fixes each got, and the warnings left that need a hand-made edit. Files are changed
    whether or not they are committed (or under version control at all).

    Args:
        package: Only this workspace package (`cargo fix --package NAME`).
        sandbox: Only when the sandbox stopped the build and it truly needs more (e.g. to fetch dependencies): "network" (network access) or "unconfined" (no sandbox) for this one call. The user is always asked; give a justification.
        justification: Why the build must leave the sandbox (required with sandbox; shown to the user).
    """
    try:
        package = check_package(NAME, package)
        require_manifest(ctx, NAME)
        # Like write_file and edit_file, fixes apply whether or not the project is under
        # version control: the call is approved as a write (--allow-dirty waives the same
        # protection for changed files anyway).
        argv = [
            "cargo",
            "fix",
            "--allow-dirty",
            "--allow-staged",
            "--allow-no-vcs",
            "--message-format=json",
        ]
        if package is not None:
            argv += ["--package", package]
        result = await run_toolchain(ctx, NAME, argv)
    except ToolError as exc:
        return ToolResult.error(str(exc))
    outcome = FixOutcome(fixes=parse_fixed(result.stderr))
    read_messages(result.stdout, ctx.root.path, outcome)
    lines = render(outcome)
    failed = not result.ok
    if failed and (outcome.build_ok is False or outcome.errors):
        lines[0] = f"{NAME}: the crate does not compile" + (
            "; fixes were applied before the error" if outcome.fixes else "; nothing was fixed"
        )
        lines += _build_errors(outcome, result.stderr)
    elif failed:
        lines += [f"cargo fix exited with {result.returncode}:", stderr_tail(result.stderr)]
    elif _FAILED_TO_APPLY in result.stderr:
        lines.append("some suggestions broke the build and were undone by cargo fix:")
        lines.append(stderr_tail(result.stderr, lines=20))
    if note := ended_note(NAME, result, ctx.config.shell.max_timeout_secs):
        lines.append(note)
    details = {
        "fixes": outcome.fixes,
        "warnings_left": outcome.warnings,
        "errors": len(outcome.errors),
        "exit_code": result.exit_code,
    }
    return ToolResult("\n".join(line for line in lines if line), is_error=failed, details=details)


__all__ = ["FixOutcome", "build_succeeded", "cargo_fix", "parse_fixed", "read_messages", "render"]
