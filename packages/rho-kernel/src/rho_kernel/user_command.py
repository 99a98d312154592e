"""A shell command the user runs into the conversation (`Runtime.run_user_command`).

The person asked for it, so no approval is asked; everything else is what a command the model
runs goes through. The line is checked against the command policy (the shell denylist, the
`[shell]` denied commands) and the deny rules naming `run_command`: those are what a person
or their team said rho must never run, whoever asks, and a command refused there is one the
person can still run in their own terminal. It runs through the process runner and the OS
sandbox, with the environment commands get (no credentials), in the project, stopped on
timeout or abort. Where no sandbox works and `[sandbox] require = "ask"`, the request itself
is the person's approval to run it unconfined; with `require = true` it is refused.

Its output is redacted as a tool result is and joins the session as a user message (see
`message_text`), cut to the share of the context one tool batch may use, the whole (redacted)
message kept in the entry's `details` as a cut tool result keeps its own.
"""

from __future__ import annotations

import re
import signal as signals
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rho_kernel.process.runner import ProcessResult
    from rho_kernel.runtime import Runtime
    from rho_kernel.security.key_scan import ProjectKeys
    from rho_kernel.tools.base import ToolContext

#: The longest command line taken (what one shell argument may hold, with room to spare).
MAX_COMMAND_CHARS = 65536


class UserCommandError(Exception):
    """The command cannot run as asked: `refused` when rho will not run it at all (a deny
    rule, the shell denylist, no sandbox and `[sandbox] require = true`), else the request
    is wrong (a blank command, a `cwd` outside the project, a timeout out of range)."""

    def __init__(self, message: str, *, refused: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.refused = refused


@dataclass(frozen=True, slots=True)
class UserCommandResult:
    """How the user's command ended and what joined the conversation.

    `output` is what it wrote (stdout, then `stderr:` and stderr), redacted; `shortened`
    whether the conversation's copy was cut to fit the context; `entry_id` the session entry
    of the user message (None when the command was cancelled: nothing joined). `signal`
    names the signal that killed it; `confined_by` the sandbox it ran in (None: unconfined).
    """

    exit_code: int | None
    output: str
    timed_out: bool
    cancelled: bool
    shortened: bool
    entry_id: str | None
    signal: str | None = None
    confined_by: str | None = None


async def run_user_command(
    runtime: Runtime, command: str, *, cwd: str | None = None, timeout: int | None = None
) -> UserCommandResult:
    """Run `command` for the user and add it to the conversation (see the module). The
    caller holds the runtime's turn (no prompt runs meanwhile); `runtime.cancel` stops it.
    Raises `UserCommandError`."""
    from rho_kernel.process import ProcessStartError, ShellNotFoundError, find_shell
    from rho_kernel.security import SandboxError

    config = runtime.config
    seconds = _timeout(timeout, config.shell.timeout_secs, config.shell.max_timeout_secs)
    if not command.strip():
        raise UserCommandError("command: give a command line")
    if len(command) > MAX_COMMAND_CHARS:
        raise UserCommandError(f"command: at most {MAX_COMMAND_CHARS} characters")
    for name, value in (("command", command), ("cwd", cwd or "")):
        if "\x00" in value:
            raise UserCommandError(f"{name}: a NUL character cannot reach the shell")
    try:
        program = find_shell(config.shell.program)
    except ShellNotFoundError as exc:
        raise UserCommandError(str(exc), refused=True) from None
    _check_policy(runtime, command, program.kind, cwd)
    ctx = _context(runtime)
    keys = _project_keys(runtime)
    if keys is not None:
        await keys.ready()  # the output is redacted knowing every key of the project
    try:
        result = await ctx.run_process(
            program.argv(command),
            cwd=cwd,
            env=ctx.command_environment(),
            timeout=seconds,
            max_output_bytes=config.shell.max_output_bytes,
            live=False,
        )
    except SandboxError as exc:
        raise UserCommandError(_cwd_problem(cwd or "", exc)) from None
    except ProcessStartError as exc:  # no sandbox may run it (require = true), …
        raise UserCommandError(str(exc), refused=True) from None
    finally:
        if keys is not None:
            keys.changed()
    return _recorded(runtime, ctx, command, cwd, seconds, result)


def _timeout(asked: int | None, default: int, most: int) -> int:
    if asked is None:
        return min(default, most)
    if not 1 <= asked <= most:
        raise UserCommandError(
            f"timeout: give whole seconds from 1 to {most} ([shell] max_timeout_secs)"
        )
    return asked


def _check_policy(
    runtime: Runtime, command: str, shell: Literal["bash", "pwsh"], cwd: str | None
) -> None:
    """Refuse what rho never runs: the shell denylist, then the deny rules of run_command."""
    from rho_kernel.security import CommandPolicy

    policy = CommandPolicy.from_config(runtime.config.shell, shell=shell)
    denial = policy.check(command)
    if denial is not None:
        raise UserCommandError(
            f"rho does not run this command: {denial.reason} (run it in your own terminal)",
            refused=True,
        )
    rules, tool = runtime.approval_rules, runtime.tools.get("run_command")
    if rules is None or tool is None or tool.rule_subject != "command":
        return
    arguments = {"command": command, **({"cwd": cwd} if cwd else {})}
    rule = rules.denying(tool, arguments, root=runtime.root)
    if rule is not None:
        raise UserCommandError(
            f"rho does not run this command: the deny rule {rule.rule.text!r} ({rule.source}) "
            "covers it (run it in your own terminal)",
            refused=True,
        )


def _context(runtime: Runtime) -> ToolContext:
    """The context a command of the model's would run in, approved by the person asking."""
    from rho_kernel.tools.base import ToolContext

    async def unseen(stream: str, text: str) -> None:
        """Live output goes nowhere: the result carries it."""

    assert runtime.cancel is not None, "the caller holds the runtime's turn"
    return ToolContext(
        root=runtime.root,
        config=runtime.config,
        cancel=runtime.cancel,
        session=runtime.session,
        output=unseen,  # what the command created is said in its output, not on stderr
        confinement=runtime.confinement,
        unconfined_approved=True,  # the person asked for this very command
    )


def _project_keys(runtime: Runtime) -> ProjectKeys | None:
    """The scan that teaches the redactor the project's private keys (None: redaction off)."""
    from rho_kernel.security.key_scan import project_keys
    from rho_kernel.security.redaction import Redactor

    if not Redactor.from_config(runtime.config.redaction).enabled:
        return None
    return project_keys(runtime.root.path)


def _cwd_problem(cwd: str, exc: Exception) -> str:
    from rho_kernel.security import FileTypeError, PathNotFoundError

    if isinstance(exc, PathNotFoundError):
        return f"cwd: '{cwd}' does not exist in the project"
    if isinstance(exc, FileTypeError):
        return f"cwd: '{cwd}' is not a directory"
    return f"cwd: '{cwd}' is refused: {exc} (give a directory inside the project)"


def _recorded(
    runtime: Runtime,
    ctx: ToolContext,
    command: str,
    cwd: str | None,
    seconds: int,
    result: ProcessResult,
) -> UserCommandResult:
    """Redact the output, add the message to the session (unless cancelled), and say how
    the command ended."""
    from rho_kernel.confinement.hints import created_note, revealed_note
    from rho_kernel.security.redaction import Redactor

    redactor = Redactor.from_config(runtime.config.redaction)
    output = redactor.redact(_output(result))
    command = redactor.redact(command)  # a key typed into the line stays out of the context
    notes = [created_note(ctx.created_repositories)] if ctx.created_repositories else []
    if ctx.revealed_repositories:
        notes.append(revealed_note(ctx.revealed_repositories))
    killed = _signal_name(result.signal) if result.signal is not None else None
    shortened, entry_id = False, None
    if not result.cancelled:
        ended = _ended(result, seconds, killed)
        shortened, entry_id = _add_message(runtime, command, cwd, ended, output, notes)
    return UserCommandResult(
        # a command stopped for its time has no exit status of its own (a sandbox launcher may
        # report the signal that stopped it as 128 + its number)
        exit_code=None if result.timed_out else result.exit_code,
        output="\n".join([output, *notes]) if notes else output,
        timed_out=result.timed_out,
        cancelled=result.cancelled,
        shortened=shortened,
        entry_id=entry_id,
        signal=killed,
        confined_by=result.confined_by,
    )


def _output(result: ProcessResult) -> str:
    """What the command wrote, as run_command shows it: stdout, then `stderr:` and stderr."""
    if result.stdout and result.stderr:
        return f"{result.stdout}\nstderr:\n{result.stderr}"
    if result.stderr:
        return f"stderr:\n{result.stderr}"
    return result.stdout


def _ended(result: ProcessResult, seconds: int, killed: str | None) -> str:
    if result.timed_out:
        return f"stopped after {seconds} s: it did not finish in time"
    if killed is not None:
        return f"killed by {killed}"
    return f"exit code {result.returncode}"


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _add_message(
    runtime: Runtime,
    command: str,
    cwd: str | None,
    ended: str,
    output: str,
    notes: list[str],
) -> tuple[bool, str]:
    """Append the user message; (whether its output was cut to fit, its entry id)."""
    from rho_kernel.context.bounding import bound_ends, shown
    from rho_kernel.messages import ChatMessage

    full = message_text(command, cwd, ended, "\n".join([output, *notes]) if notes else output)
    limit = _share(runtime)
    # Like a command the model runs: its first and its last lines (where errors end up).
    bounded = bound_ends(output, max(0, limit - (len(full.encode()) - len(output.encode()))))
    message = ChatMessage.user(full)
    if bounded is not None:
        kept = shown(bounded, None)
        message = ChatMessage.user(
            message_text(command, cwd, ended, "\n".join([kept, *notes]) if notes else kept)
        )
        message.details = {"FullOutput": {"original_size": bounded.original_bytes, "content": full}}
    runtime.session.close_open_tool_calls()  # a turn left unanswered calls: closed first
    entry = runtime.session.append_message(message)
    return bounded is not None, entry.id


def _share(runtime: Runtime) -> int:
    """The bytes one tool batch's results may use, as the loop counts them."""
    from rho_kernel.loop.agent import tool_definition_bytes

    prompt = runtime.estimator.budget_bytes(runtime.budget().prompt_budget, runtime.model)
    available = max(0, prompt - tool_definition_bytes(runtime.tools.schemas()))
    return int(available * runtime.config.agent.tool_result_share)


_FENCE = re.compile(r"`+")


def _fenced(text: str, language: str = "") -> str:
    """`text` in a Markdown code fence longer than any run of backticks it holds."""
    longest = max((len(run) for run in _FENCE.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def message_text(command: str, cwd: str | None, ended: str, output: str) -> str:
    """The user message a command joins the conversation as:

        I ran `git status` (exit code 0):
        ```
        On branch main
        ```

    A command of several lines, or holding a backtick, is shown in a fence of its own; `cwd`
    is named when it is not the project root; a command that printed nothing says so."""
    where = f" in {cwd}" if cwd and cwd.strip() not in ("", ".") else ""
    if any(char in command for char in "\n\r`"):
        intro = f"I ran this command{where}:\n{_fenced(command, 'sh')}\nIt ended ({ended})"
    else:
        intro = f"I ran `{command}`{where} ({ended})"
    if not output.strip():
        return f"{intro}. It printed nothing."
    return f"{intro}:\n{_fenced(output)}"


__all__ = [
    "MAX_COMMAND_CHARS",
    "UserCommandError",
    "UserCommandResult",
    "message_text",
    "run_user_command",
]
