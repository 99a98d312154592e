"""The `cargo_fix` tool: apply the compiler's machine-applicable suggestions and report
which files changed and how many fixes each got.

cargo names each file it rewrote on stderr (`Fixed src/main.rs (2 fixes)`); the messages
the compiler still gives afterwards come as JSON on stdout (`--message-format=json`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rho_kernel.tools import Phase, Risk, ToolContext, ToolError, ToolResult, tool
from rho_tools_rust.cargo_args import check_package
from rho_tools_rust.cargo_runner import ended_note, require_manifest, run_toolchain, stderr_tail

NAME = "cargo_fix"
_FIXED = re.compile(r"^\s*Fixed (?P<file>.+) \((?P<count>\d+) fix(?:es)?\)\s*$")
#: Compiler errors shown in full when the crate does not build.
MAX_ERRORS_SHOWN = 10
_FAILED_TO_APPLY = "failed to automatically apply fixes"


@dataclass(slots=True)
class FixOutcome:
    """What a `cargo fix` run did: fixes per file, the diagnostics left, whether it built."""

    fixes: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
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


def parse_messages(stdout: str, outcome: FixOutcome) -> None:
    """Read cargo's JSON messages into `outcome`: the errors' rendered text, the number of
    warnings left (each counted once), and the build's success."""
    seen: set[str] = set()
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if message.get("reason") == "build-finished":
            outcome.build_ok = message.get("success") is True
            continue
        body = message.get("message")
        if message.get("reason") != "compiler-message" or not isinstance(body, dict):
            continue
        rendered = str(body.get("rendered") or body.get("message") or "")
        if rendered in seen or not body.get("spans"):  # the "N warnings emitted" summaries
            continue
        seen.add(rendered)
        if body.get("level") == "error":
            outcome.errors.append(rendered.rstrip())
        elif body.get("level") == "warning":
            outcome.warnings += 1


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
    return [*shown, *([f"… and {hidden} more errors"] if hidden > 0 else [])]


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
async def cargo_fix(package: str | None = None, *, ctx: ToolContext) -> ToolResult:
    """Apply the compiler's machine-applicable suggestions to the Rust crate (`cargo fix`):
    unused imports, needless `mut` and the like. Reports the files changed and how many
    fixes each got, and the warnings left that need a hand-made edit. Files are changed
    whether or not they are committed (or under version control at all).

    Args:
        package: Only this workspace package (`cargo fix --package NAME`).
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
    parse_messages(result.stdout, outcome)
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


__all__ = ["FixOutcome", "cargo_fix", "parse_fixed", "parse_messages", "render"]
