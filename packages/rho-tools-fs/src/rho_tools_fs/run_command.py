"""The `run_command` tool: a shell command line in the project, through the process runner.

The line is checked against the command policy first (`rho_kernel.security.commands`);
then it runs with `bash --noprofile --norc -c` (or PowerShell, `[shell] program`) in its
own process group, with a timeout and live output to the client. What it prints is kept up
to `[shell] max_output_bytes` per stream, a guard on memory; how much of it the model sees
is decided by the context budget, as for every tool result: the loop cuts a result too
large for its share to its first and last lines (`cut_keeps_tail`), with the whole text in
the tool message's details. The process runner is imported on the first call, not when the
tool is registered.
"""

from __future__ import annotations

import signal as signals
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel import sandbox_note
from rho_kernel.security import SandboxError
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.shell_setup import cwd_error, mentions_cd, quoted, shell_setup

if TYPE_CHECKING:
    from rho_kernel import ProcessResult
    from rho_tools_fs.shell_setup import ShellSetup

CD_NOTE = (
    "[NOTE: each run_command starts a fresh process in the project root. A cd does not "
    "carry over to the next call: use paths relative to the project root or the cwd "
    "parameter.]\n"
)


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def render(result: ProcessResult, command: str, timeout: int, notes: list[str]) -> str:
    """`exit_code: {n}` + the cd note + stdout/stderr + notes on how the command ended."""
    if result.stdout and result.stderr:
        body = f"{result.stdout}\nstderr:\n{result.stderr}"
    elif result.stderr:
        body = f"stderr:\n{result.stderr}"
    else:
        body = result.stdout
    text = f"exit_code: {result.returncode}\n{CD_NOTE if mentions_cd(command) else ''}{body}"
    ended = list(notes)
    if result.timed_out:
        ended.append(
            f"[run_command: timed out after {timeout}s; the command and every process it "
            "started were stopped]"
        )
    elif result.signal is not None:
        ended.append(f"[run_command: killed by {_signal_name(result.signal)}]")
    if note := sandbox_note(result, escalation="run_command"):
        ended.append(note)
    return text + "".join(f"\n{note}" for note in ended)


def kept_notes(result: ProcessResult, cap: int) -> list[str]:
    """A note for each stream longer than the memory guard (`[shell] max_output_bytes`),
    whose middle was never kept: the whole size, which the result alone no longer says."""
    notes = []
    for stream, total, elided in (
        ("stdout", result.stdout_bytes, result.stdout_elided),
        ("stderr", result.stderr_bytes, result.stderr_elided),
    ):
        if elided:
            notes.append(
                f"[run_command: {stream} was {total} bytes; rho keeps at most {cap} of each "
                f"stream ([shell] max_output_bytes), so {elided} bytes in its middle are gone]"
            )
    return notes


def _continuation(arguments: dict[str, Any], result: ToolResult, kept_lines: int) -> str:
    """How to see the lines left out of a result cut after its first `kept_lines` lines:
    again, from the first of them on (`tail -n +N`, N counted in the command's output) when
    the result holds stdout alone; else narrowed."""
    output = result.output
    header = 1 + (CD_NOTE in output[: len(CD_NOTE) + 32])
    body = output.split("\n", header)[-1]
    first = kept_lines + 1 - header
    if first >= 1 and not body.startswith("stderr:\n") and "\nstderr:\n" not in body:
        return (
            f"To see them, run it again piped to `tail -n +{first} | head -n 200` (or "
            "narrowed with grep)"
        )
    return "To see them, run it again narrowed (grep, or head/tail after `2>&1`)"


def _timeout(requested: int | None, ctx: ToolContext) -> tuple[int, list[str]]:
    shell = ctx.config.shell
    if requested is None:
        return min(shell.timeout_secs, shell.max_timeout_secs), []
    if requested > shell.max_timeout_secs:
        note = (
            f"[run_command: timeout_secs {requested} is above the limit "
            f"([shell] max_timeout_secs); {shell.max_timeout_secs}s was used]"
        )
        return shell.max_timeout_secs, [note]
    return requested, []


def _setup(command: str, timeout_secs: int | None, ctx: ToolContext) -> ShellSetup | str:
    """The shell setup that runs this command line, or why the line cannot run at all:
    empty, a timeout below 1 s, no shell, or refused by the command policy."""
    from rho_kernel.process import ShellNotFoundError

    if not command.strip():
        return "run_command: command is empty"
    if timeout_secs is not None and timeout_secs < 1:
        return "run_command: timeout_secs must be at least 1"
    try:
        setup = shell_setup(ctx)
    except ShellNotFoundError as exc:
        return f"run_command: {exc}"
    denial = setup.policy.check(command)
    if denial is not None:
        return f"run_command: command denied: {denial.reason}"
    return setup


def _check(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
    """Before the approval is asked (blocking, run in a worker thread): whether the line
    can run at all (`_setup`), then whether `cwd` is a directory in the project."""
    from rho_kernel.process import resolve_cwd

    setup = _setup(arguments["command"], arguments["timeout_secs"], ctx)
    if isinstance(setup, str):
        return setup
    cwd = arguments["cwd"]
    try:
        resolve_cwd(ctx.root, cwd)
    except SandboxError as exc:
        return cwd_error("run_command", cwd or "", ctx.root, exc)
    return None


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    state = (
        "denied"
        if "command denied:" in result.output[:40]
        else ("failed" if result.is_error else "ok")
    )
    return f"run_command {quoted(str(arguments.get('command', '')), 120)} — {state} ({len(result.output)} chars)"


@tool(
    risk=Risk.DESTRUCTIVE,
    phase=Phase.EXECUTION,
    outline=_outline,
    runs_processes=True,
    fresh_process_per_call=True,
    rule_subject="command",
    cut_keeps_tail=True,
    continuation=_continuation,
    check=_check,
)
async def run_command(
    command: str,
    cwd: str | None = None,
    input: str | None = None,
    timeout_secs: int | None = None,
    sandbox: Literal["network", "unconfined"] | None = None,
    justification: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Run a shell command line (`bash -c` without profile or rc files; PowerShell where
    configured) in a fresh process in the project root: a cd does not carry over, use cwd.
    Returns `exit_code: N`, then stdout, then `stderr:` and stderr; long output keeps its
    first and last lines with a note (pipe through grep, head or tail for less). Network
    tools (curl, wget, ssh, …) and recursive removal of / or ~ are refused. The command and
    every process it started stop after timeout_secs. Under the OS sandbox it writes only in
    the project and has no network unless the user allowed it.

    Args:
        command: The command line, e.g. `cargo test -p core 2>&1 | tail -50`.
        cwd: Directory to start in; it must exist.
        input: Text written to standard input, which is then closed.
        timeout_secs: Seconds before it is stopped (default 120, at most 600, unless configured).
        sandbox: Only when the sandbox stopped this command and it truly needs more: `network` or `unconfined` (no sandbox), for this call. The user is always asked.
        justification: Why it must leave the sandbox (required with sandbox; shown to the user).
    """
    from rho_kernel.process import ProcessStartError

    setup = _setup(command, timeout_secs, ctx)
    if isinstance(setup, str):
        return ToolResult.error(setup)
    timeout, notes = _timeout(timeout_secs, ctx)
    cap = ctx.config.shell.max_output_bytes
    try:
        result = await ctx.run_process(
            setup.program.argv(command),
            cwd=cwd,
            env=setup.env,
            input=input,
            timeout=timeout,
            max_output_bytes=cap,
        )
    except SandboxError as exc:
        return ToolResult.error(cwd_error("run_command", cwd or "", ctx.root, exc))
    except ProcessStartError as exc:
        return ToolResult.error(f"run_command: {exc}")
    if result.cancelled:
        return ToolResult.error("run_command: cancelled; the command was stopped")
    notes += kept_notes(result, cap)
    return ToolResult(render(result, command, timeout, notes), is_error=not result.ok)


__all__ = ["CD_NOTE", "kept_notes", "render", "run_command"]
