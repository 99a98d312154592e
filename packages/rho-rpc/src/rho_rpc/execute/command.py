"""`rho exec`: build the runtime as `rho` does, run the one prompt, show it, and exit with
what happened.

Exit status: 0 when the model finished; 1 when the run ended in an error (the provider
failed, `[agent] max_iterations` was reached, the model kept answering nothing), said on
stderr; 2 for usage and configuration errors; 130 on Ctrl-C, which aborts the turn (running
commands are stopped) and closes the session as usual before exiting.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rho_rpc.execute.options import ExecArgs, UsageError, parse

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
INTERRUPTED = 130


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


def _gate(args: ExecArgs, console: Any = None, screen: Any = None) -> ApprovalGate:
    """The person at the terminal (stdin), or — without one — nobody."""
    from rho_rpc.execute.gates import NoTerminalGate, TerminalGate

    if sys.stdin.isatty():  # (a prompt read from stdin leaves none)
        if console is None:
            from rho_rpc.execute.screen import make_console

            color = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
            console = make_console(sys.stderr, color=color)
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

    return View([screen], _gate(args, console, screen), finish)


def _plain_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.progress import PlainProgress

    def finish(result: AgentResult | None, error: AgentError | None, elapsed: float) -> None:
        if result is not None and result.reply:
            sys.stdout.write(result.reply if result.reply.endswith("\n") else result.reply + "\n")
            sys.stdout.flush()

    return View([PlainProgress(sys.stderr)], _gate(args), finish)


def _json_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.outputs import json_result, print_json

    def finish(result: AgentResult | None, error: AgentError | None, elapsed: float) -> None:
        print_json(sys.stdout, json_result(result, error, runtime))

    return View([], _gate(args), finish)


def _stream_view(args: ExecArgs, runtime: Runtime) -> View:
    from rho_rpc.execute.outputs import stream_peer

    return View([stream_peer(sys.stdout, runtime)], _gate(args), lambda *_: None)


VIEWS = {
    "terminal": _terminal_view,
    "plain": _plain_view,
    "json": _json_view,
    "stream-json": _stream_view,
}


def _status(result: AgentResult | None, error: AgentError | None, interrupted: bool) -> int:
    """The exit status, with the reason of a failure said on stderr."""
    from rho_kernel import diagnostics

    if interrupted:
        return INTERRUPTED
    if error is not None:
        diagnostics.error(error.message)
        return 1
    assert result is not None
    status, reason = FINISH_STATUS.get(result.finish_reason, (1, result.finish_reason))
    if reason is not None:
        diagnostics.error(reason)
    return status


@dataclass
class _Interrupt:
    """Ctrl-C: the first aborts the turn; a second, while it winds down, exits at once."""

    runtime: Runtime
    seen: bool = False

    def __call__(self) -> None:
        if self.seen:
            os._exit(INTERRUPTED)
        self.seen = True
        self.runtime.abort()


async def _undo(runtime: Runtime, args: ExecArgs) -> int:
    """`--undo`: the files as the session's last run started; the exit status."""
    from rho_kernel import diagnostics, hookspecs

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
        sys.stdout.write(f"restored {change.path} ({change.status} since)\n")
    return 0


async def _run(runtime: Runtime, args: ExecArgs) -> int:
    """Run the prompt to its end and close the session; the exit status."""
    from rho_kernel import hookspecs
    from rho_kernel.frontend import AgentError

    loop = asyncio.get_running_loop()
    interrupt = _Interrupt(runtime)
    loop.add_signal_handler(signal.SIGINT, interrupt)
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
    try:
        await runtime.startup_settled()
        if not interrupt.seen:
            result = await runtime.prompt(args.prompt, observers=view.observers, gate=view.gate)
    except AgentError as exc:
        error = exc
    finally:
        if announced is not None:
            await announced
        runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
        await runtime.aclose("rho exec ended")
        loop.remove_signal_handler(signal.SIGINT)
    view.finish(result, error, time.monotonic() - started)
    return _status(result, error, interrupt.seen)


def main(argv: list[str]) -> int:
    """Entry point of `rho exec ARGS…`; returns the exit status."""
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
    try:
        return asyncio.run(_undo(runtime, args) if args.flags.undo else _run(runtime, args))
    except KeyboardInterrupt:
        return INTERRUPTED


__all__ = ["FINISH_STATUS", "INTERRUPTED", "View", "main"]
