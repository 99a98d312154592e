"""The `wait_for` tool: run a probe command every few seconds until a condition holds.

Conditions: `success` (exit status 0), `exit_code: N`, or `regex: PATTERN` — a
case-insensitive regular expression (ripgrep syntax, matched line by line in linear time)
searched in the probe's stdout and stderr. Every probe goes through the process runner
with a per-poll timeout; a probe that runs over it is an unsatisfied poll. The process runner
and the regex hints are imported on the first call, not when the tool is registered.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel import Cancelled, sandbox_note
from rho_kernel.security import SandboxError
from rho_kernel.tools import Risk, ToolContext, ToolResult, tool
from rho_tools_fs.shell_setup import ShellSetup, cwd_error, quoted, shell_setup

if TYPE_CHECKING:
    from rho_kernel import ProcessResult

MAX_TIMEOUT_SECS = 86400
MAX_POLL_SECS = 300
CANCELLED = "wait_for: cancelled while waiting"
_UNTIL_HELP = 'expected "success", "exit_code: N" or "regex: PATTERN"'


@dataclass(frozen=True, slots=True)
class Condition:
    """What a poll must show: `kind` "success", "exit_code" (`code`) or "regex" (`pattern`)."""

    kind: str
    code: int = 0
    pattern: str = ""


def parse_until(until: str) -> Condition:
    """The condition written as `until`; raises ValueError with a message for the model."""
    text = until.strip()
    key, colon, rest = text.partition(":")
    key = key.strip().lower()
    if text.lower() == "success":
        return Condition("success")
    if colon and key == "exit_code":
        try:
            return Condition("exit_code", code=int(rest.strip()))
        except ValueError:
            raise ValueError(f"invalid until {until!r}: exit_code needs an integer") from None
    if colon and key == "regex" and rest.strip():
        return Condition("regex", pattern=rest.strip())
    raise ValueError(f"invalid until {until!r}: {_UNTIL_HELP}")


def ripgrep() -> str | None:
    """The `rg` next to the running Python (the ripgrep wheel), else on PATH."""
    beside = Path(sys.executable).with_name("rg")
    return str(beside) if beside.is_file() else shutil.which("rg")


async def _regex_matches(rg: str, pattern: str, text: str, ctx: ToolContext) -> bool | str:
    """True/False, or ripgrep's complaint about the pattern."""
    from rho_kernel.process import run_process

    argv = [rg, "--no-config", "--ignore-case", "--quiet", "--text", "--regexp", pattern, "-"]
    result = await run_process(argv, root=ctx.root, input=text, timeout=60, cancel=ctx.cancel)
    if result.cancelled:
        raise Cancelled()
    if result.exit_code in (0, 1):
        return result.exit_code == 0
    return " ".join(result.stderr.split()) or f"ripgrep failed (exit {result.returncode})"


async def _satisfied(condition: Condition, result: ProcessResult, ctx: ToolContext) -> bool:
    if result.timed_out:
        return False
    if condition.kind == "success":
        return result.exit_code == 0
    if condition.kind == "exit_code":
        return result.exit_code == condition.code
    rg = ripgrep()
    assert rg is not None  # checked before the first poll
    found = await _regex_matches(rg, condition.pattern, f"{result.stdout}\n{result.stderr}", ctx)
    return found is True


def render(result: ProcessResult, polls: int, elapsed: float, poll_timeout: float) -> str:
    """Trimmed stdout, trimmed stderr, then `[wait_for: N polls, Ss elapsed, exit C]`."""
    parts = [text for text in (result.stdout.strip(), result.stderr.strip()) if text]
    status = f"exit {result.returncode}"
    if result.timed_out:
        status += f" (the probe ran over its {poll_timeout:g}s limit and was stopped)"
    plural = "poll" if polls == 1 else "polls"
    parts.append(f"[wait_for: {polls} {plural}, {elapsed:.1f}s elapsed, {status}]")
    return "\n".join(parts)


async def _check_condition(condition: Condition, ctx: ToolContext) -> str | None:
    if condition.kind != "regex":
        return None
    rg = ripgrep()
    if rg is None:
        return "wait_for: regex conditions need ripgrep (rg), which is not installed"
    verdict = await _regex_matches(rg, condition.pattern, "", ctx)
    if not isinstance(verdict, str):
        return None
    from rho_tools_fs.regex_hints import regex_hint

    hint = regex_hint(condition.pattern, verdict, fixed_strings=False)
    return f"wait_for: invalid regex {condition.pattern!r}: {verdict}\nHint: {hint}"


async def _poll(
    setup: ShellSetup, command: str, cwd: str | None, limit: float, ctx: ToolContext
) -> ProcessResult:
    return await ctx.run_process(
        setup.program.argv(command),
        cwd=cwd,
        env=setup.env,
        timeout=limit,
        max_output_bytes=ctx.config.shell.max_output_bytes,
        live=False,
    )


async def _wait(
    setup: ShellSetup,
    command: str,
    condition: Condition,
    timing: tuple[int, int],
    cwd: str | None,
    ctx: ToolContext,
) -> ToolResult:
    timeout, poll = timing
    started, polls = time.monotonic(), 0
    while True:
        remaining = timeout - (time.monotonic() - started)
        limit = min(2 * poll, max(remaining, 1))
        result = await _poll(setup, command, cwd, limit, ctx)
        polls += 1
        if result.cancelled:
            return ToolResult.error(CANCELLED)
        satisfied = await _satisfied(condition, result, ctx)
        elapsed = time.monotonic() - started
        if satisfied:
            return ToolResult(render(result, polls, elapsed, limit))
        if elapsed >= timeout:
            plural = "poll" if polls == 1 else "polls"
            note = sandbox_note(result)
            return ToolResult.error(
                render(result, polls, elapsed, limit)
                + f"\n[wait_for: timed out after {timeout}s across {polls} {plural} without "
                "satisfying the condition]" + (f"\n{note}" if note else "")
            )
        await ctx.cancel.run(asyncio.sleep(min(poll, timeout - elapsed)))


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    until = str(arguments.get("until", "success"))[:40]
    state = "failed" if result.is_error else "satisfied"
    return f"wait_for {quoted(str(arguments.get('command', '')), 100)} until {until} — {state}"


@tool(risk=Risk.DESTRUCTIVE, outline=_outline, runs_processes=True, cut_keeps_tail=True)
async def wait_for(
    command: str,
    until: str = "success",
    timeout_secs: int = 300,
    poll_secs: int = 10,
    cwd: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Run a probe command every poll_secs until a condition holds (a server is up, a build
    done, a file there) or timeout_secs pass, rather than run_command in a loop. Probes run
    as run_command's do, each stopped after 2 × poll_secs (a failed poll). Returns the last
    probe's trimmed stdout and stderr and `[wait_for: N polls, Ss elapsed, exit C]`; an
    error on timeout.

    Args:
        command: The probe, e.g. `test -f build/done` or `cat server.log`.
        until: `success` (exit status 0), `exit_code: N`, or `regex: PATTERN` (case-insensitive, per line of stdout and stderr).
        timeout_secs: Seconds to wait in all (1 to 86400).
        poll_secs: Seconds between probes (1 to 300, at most timeout_secs).
        cwd: Directory to run the probe in.
    """
    from rho_kernel.process import ProcessStartError, ShellNotFoundError

    try:
        condition = parse_until(until)
    except ValueError as exc:
        return ToolResult.error(f"wait_for: {exc}")
    if not command.strip():
        return ToolResult.error("wait_for: command is empty")
    timeout = min(max(timeout_secs, 1), MAX_TIMEOUT_SECS)
    poll = min(max(poll_secs, 1), MAX_POLL_SECS, timeout)
    try:
        setup = shell_setup(ctx)
    except ShellNotFoundError as exc:
        return ToolResult.error(f"wait_for: {exc}")
    denial = setup.policy.check(command)  # once: the probe is the same every time
    if denial is not None:
        return ToolResult.error(f"wait_for: command denied: {denial.reason}")
    try:
        problem = await _check_condition(condition, ctx)
        if problem is not None:
            return ToolResult.error(problem)
        return await _wait(setup, command, condition, (timeout, poll), cwd, ctx)
    except SandboxError as exc:
        return ToolResult.error(cwd_error("wait_for", cwd or "", ctx.root, exc))
    except ProcessStartError as exc:
        return ToolResult.error(f"wait_for: {exc}")
    except Cancelled:
        return ToolResult.error(CANCELLED)


__all__ = ["CANCELLED", "Condition", "parse_until", "render", "ripgrep", "wait_for"]
