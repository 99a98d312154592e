"""`rho exec`: build the runtime as `rho` does, run the one prompt, show it, and exit with
what happened.

Exit status: 0 when the model finished; 1 when the run ended in an error (the provider
failed, `[agent] max_iterations` was reached, the model kept answering nothing), said on
stderr; 2 for usage and configuration errors; 5 (`REFUSED`, with `--fail-on-denial`) when
the run ended with a call denied or blocked; 130 on Ctrl-C (SIGINT) and 143 on SIGTERM,
either of which aborts the turn (running commands are stopped) and closes the session as
usual before exiting — within `SHUTDOWN_GRACE` seconds whatever the turn is doing; a second
signal exits at once.

What the model and its tools wrote reaches the terminal as text only: plain output and
everything on stderr have their control sequences removed (`controls`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

from rho_kernel import escape_controls
from rho_kernel.frontend import INTERRUPTED, Winding, leave_now, run_to_end
from rho_rpc.execute.controls import StrippedStream, strip_controls
from rho_rpc.execute.options import REFUSED, ExecArgs, UsageError, parse

if TYPE_CHECKING:
    from rho_kernel import AgentResult, ApprovalGate, Observer, Runtime
    from rho_kernel.frontend import AgentError

#: How each way a finished turn ends maps to the exit status, with the reason said.
FINISH_STATUS: dict[str, tuple[int, str | None]] = {
    "stop": (0, None),
    "max_iterations": (1, "the run reached its limit of model requests ([agent] max_iterations)"),
    "consecutive_empty_responses": (1, "the model kept answering nothing"),
    "cancelled": (1, "the run was cancelled"),
}
#: The exit status of a run ended by SIGTERM (128 + 15, as shells report it).
TERMINATED = 143
#: The signals that end a run, and the exit status each gives.
STOP_SIGNALS = {signal.SIGINT: INTERRUPTED, signal.SIGTERM: TERMINATED}


@dataclass
class View:
    """How the run is shown: its observers, its approval gate, and what is written when
    it ends (`finish(result, error, elapsed)`)."""

    observers: list[Observer]
    gate: ApprovalGate
    finish: Callable[[AgentResult | None, AgentError | None, float], None]
    notes: list[str] = field(default_factory=list)


def _say(text: str) -> None:
    from rho_kernel import diagnostics

    diagnostics.warn(text)


def _stderr() -> IO[str]:
    """stderr itself, for rho's own drawing (the approval question, in colour): not the
    `StrippedStream` that the rest of what goes there passes through."""
    stream = sys.stderr
    return stream.target if isinstance(stream, StrippedStream) else stream


def _gate(
    args: ExecArgs, runtime: Runtime, console: Any = None, screen: Any = None
) -> ApprovalGate:
    """The `--approve-with` command, the person at the terminal (stdin), or — without
    either — nobody."""
    from rho_rpc.execute.gates import NoTerminalGate, TerminalGate

    if args.approver is not None:
        from rho_kernel import diagnostics
        from rho_rpc.execute.approver import CommandGate

        note = screen.note if screen is not None else diagnostics.info
        warn = screen.note if screen is not None else _say
        return CommandGate(args.approver, runtime.root, note, warn)
    if sys.stdin.isatty():  # (a prompt read from stdin leaves none)
        if console is None:
            from rho_rpc.execute.screen import make_console

            stderr = _stderr()
            color = stderr.isatty() and not os.environ.get("NO_COLOR")
            console = make_console(stderr, color=color)
        return TerminalGate(console, screen)
    return NoTerminalGate(screen.note if screen is not None else _say)


def _edit_tools(runtime: Runtime) -> list[str]:
    from rho_kernel import Risk

    return [t.name for t in runtime.tools if t.rule_subject == "path" and t.risk != Risk.READ]


def _terminal_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.screen import TerminalScreen, make_console

    console = make_console(sys.stdout, color=args.color)
    screen = TerminalScreen(console, runtime.root, _edit_tools(runtime))

    def finish(result: AgentResult | None, error: AgentError | None, elapsed: float) -> None:
        screen.finish(result, elapsed, error.message if error is not None else None)

    return View([screen], _gate(args, runtime, console, screen), finish)


def _plain_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.progress import PlainProgress

    def finish(result: AgentResult | None, error: AgentError | None, elapsed: float) -> None:
        reply = strip_controls(result.reply) if result is not None else ""
        if reply:
            sys.stdout.write(reply if reply.endswith("\n") else reply + "\n")
            sys.stdout.flush()

    return View([PlainProgress(sys.stderr)], _gate(args, runtime), finish)


def _json_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.outputs import json_result, print_json

    def finish(result: AgentResult | None, error: AgentError | None, elapsed: float) -> None:
        print_json(sys.stdout, json_result(result, error, runtime))

    return View([], _gate(args, runtime), finish)


def _stream_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.outputs import stream_peer

    return View([stream_peer(sys.stdout, runtime)], _gate(args, runtime), lambda *_: None)


VIEWS = {
    "terminal": _terminal_view,
    "plain": _plain_view,
    "json": _json_view,
    "stream-json": _stream_view,
}


def _status(
    result: AgentResult | None,
    error: AgentError | None,
    stopped: int | None,
    fail_on_denial: bool = False,
) -> int:
    """The exit status (`stopped`: a signal's), with the reason of a failure said on
    stderr; with `fail_on_denial`, `REFUSED` for a run that ended with a call of it denied
    or blocked (rather than 0, or 1 for a limit it reached)."""
    from rho_kernel import diagnostics

    if stopped is not None:
        return stopped
    if error is not None:
        diagnostics.error(error.message)
        return 1
    if result is None:
        diagnostics.error("the run did not finish")
        return 1
    status, reason = FINISH_STATUS.get(result.finish_reason, (1, result.finish_reason))
    if reason is not None:
        diagnostics.error(reason)
    refused = [call for call in result.tool_calls if call.outcome in ("denied", "blocked")]
    if fail_on_denial and refused:
        names = ", ".join(dict.fromkeys(escape_controls(call.name) for call in refused))
        diagnostics.error(
            f"the run was refused what it needed: {len(refused)} "
            f"call{'' if len(refused) == 1 else 's'} denied or blocked ({names})"
        )
        return REFUSED
    return status


@dataclass
class _Stop:
    """SIGINT and SIGTERM: the first aborts the turn (its commands are stopped) and starts
    the grace it has to wind down; a second, while it winds down, exits at once."""

    runtime: Runtime
    winding: Winding
    status: int | None = None

    def __call__(self, status: int) -> None:
        if self.status is not None:
            leave_now(self.status)
        self.status = status
        self.runtime.abort()
        self.winding.start()

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Handle the signals on `loop` (until `unwatch`)."""
        for sig, status in STOP_SIGNALS.items():
            loop.add_signal_handler(sig, self, status)

    @staticmethod
    def unwatch(loop: asyncio.AbstractEventLoop) -> None:
        """Stop handling the signals on `loop` (SIGTERM then exits at once, with 143)."""
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        signal.signal(signal.SIGTERM, _terminated)


async def _undo(runtime: Runtime, args: ExecArgs) -> int:
    """`--undo`: the files as the session's last run started; the exit status."""
    from rho_kernel import diagnostics, escape_controls, hookspecs

    try:
        from rho_checkpoints import CheckpointRequestError, undo_last_turn
    except ImportError:
        diagnostics.error("--undo needs checkpoints: the rho-checkpoints pack is not installed")
        return 2
    runtime.plugins.call_each(hookspecs.rho_startup, runtime=runtime)
    try:
        done = await undo_last_turn(runtime)
    except CheckpointRequestError as exc:
        diagnostics.error(str(exc))
        return 1
    finally:
        runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
        await runtime.aclose("rho exec --undo ended")
    if done.conflicts:
        diagnostics.error(
            "not undone: " + "; ".join(done.reasons.get(path, path) for path in done.conflicts)
        )
        return 1
    for change in done.restored:
        path = escape_controls(change.path)
        sys.stdout.write(f"{change.restore_action} {path} ({change.status} since)\n")
    return 0


async def _run(runtime: Runtime, args: ExecArgs, winding: Winding) -> int:
    """Run the prompt to its end (or until a signal, plus `winding`'s grace) and close the
    session; the exit status."""
    from rho_kernel import hookspecs
    from rho_kernel.frontend import AgentError

    loop = asyncio.get_running_loop()
    stop = _Stop(runtime, winding)
    stop.watch(loop)
    runtime.plugins.call_each(hookspecs.rho_startup, runtime=runtime)
    view = VIEWS[args.output](args, runtime)
    started = time.monotonic()
    result: AgentResult | None = None
    error: AgentError | None = None
    # How commands will run, said once on stderr (probed while the model starts).
    announced = (
        loop.run_in_executor(None, runtime.confinement.announce)
        if any(tool.runs_processes for tool in runtime.tools)
        else None
    )

    async def prompt() -> AgentResult | None:
        await runtime.startup_settled()
        if stop.status is not None:
            return None
        return await runtime.prompt(args.prompt, observers=view.observers, gate=view.gate)

    try:
        task = asyncio.ensure_future(prompt())
        if await stop.winding.settle(task):
            result = task.result()
    except AgentError as exc:
        error = exc
    finally:
        if announced is not None:
            await announced
        runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
        await runtime.aclose("signal" if stop.status is not None else "rho exec ended")
        stop.unwatch(loop)
    view.finish(result, error, time.monotonic() - started)
    return _status(result, error, stop.status, args.flags.fail_on_denial)


def main(argv: list[str]) -> int:
    """Entry point of `rho exec ARGS…`; returns the exit status."""
    # What the model, a tool or a file wrote may reach stderr (a warning naming a tool, an
    # error quoting a provider): none of its control sequences does.
    sys.stderr = cast("TextIO", StrippedStream(sys.stderr))
    signal.signal(signal.SIGTERM, _terminated)
    return _main(argv)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM while no run handles it (before it starts, after it ended): nothing is
    running and every session entry is on disk, so exit at once, with 143."""
    leave_now(TERMINATED)


def _main(argv: list[str]) -> int:
    from rho_kernel import diagnostics
    from rho_rpc.cli import _build_runtime, flag_problem

    try:
        args = parse(argv, dict(os.environ))
    except UsageError as exc:
        diagnostics.error(str(exc))
        return 2
    problem = flag_problem(args.flags)
    if problem is not None:
        diagnostics.error(problem)
        return 2
    runtime = _build_runtime(args.flags)
    if isinstance(runtime, int):
        return runtime
    if args.flags.undo:
        return run_to_end(_undo(runtime, args))
    winding = Winding()
    return run_to_end(_run(runtime, args, winding), winding=winding)


__all__ = [
    "FINISH_STATUS",
    "INTERRUPTED",
    "REFUSED",
    "STOP_SIGNALS",
    "TERMINATED",
    "View",
    "main",
]
