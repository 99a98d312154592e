"""Who answers approvals in `rho exec`: the person at the terminal, or — without one —
nobody, so a call that would ask is denied and the model is told why. (`--approve-with`'s
program answers instead of either: `rho_rpc.execute.approver`.)"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from rich.console import Console

    from rho_kernel import ApprovalDecision, ApprovalRequest

_T = TypeVar("_T")

#: What the model is told of a call denied because nobody can approve it.
NO_TERMINAL = (
    "rho exec runs without a terminal, so nobody could approve this call and it did not run. "
    "Go on without it if you can; otherwise say what the user should run, or allow "
    "(rho exec --approval-mode auto-edit, or --allow RULE)."
)


#: What the model is told of a command denied because nothing can confine it and nobody
#: is there to approve it unconfined.
UNCONFINED_NO_TERMINAL = (
    "no OS sandbox works on this machine, so every command needs a person's approval, and rho "
    "exec runs without a terminal to ask: the command did not run, and no rule or mode can let "
    "it. Go on without running commands if you can; otherwise say what the user should run."
)


class Pausable(Protocol):
    """A screen that must step aside while a question is asked."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class NoTerminalGate:
    """Denies every call that would ask (nothing can answer), saying so with `say`."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.denied: list[str] = []

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        from rho_kernel import ApprovalDecision

        self.denied.append(request.tool)
        if request.sandbox is not None and request.sandbox.asks:
            self.say(
                f"denied {request.tool}: no OS sandbox works here, so every command needs a "
                f"person's approval, and there is no terminal to ask ({request.sandbox.problem}"
                f"; to fix it, {request.sandbox.fix}, or run with --no-sandbox; or answer "
                "approvals with --approve-with CMD)"
            )
            return ApprovalDecision.denied(UNCONFINED_NO_TERMINAL)
        self.say(
            f"denied {request.tool}: no terminal to ask for approval "
            "(let it run with --approval-mode or --allow RULE, or answer approvals with "
            "--approve-with CMD)"
        )
        return ApprovalDecision.denied(NO_TERMINAL)


async def _on_daemon_thread(work: Callable[[], _T]) -> _T:
    """`work()` on a daemon thread (a read from the terminal must not keep rho alive after an
    abort), awaited on the event loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(value: Any, failed: bool) -> None:
        if future.done():
            return
        if failed:
            future.set_exception(value)
        else:
            future.set_result(value)

    def run() -> None:
        try:
            value: Any = work()
            failed = False
        except BaseException as exc:  # handed to the awaiting task
            value, failed = exc, True
        loop.call_soon_threadsafe(settle, value, failed)

    threading.Thread(target=run, name="rho exec approval", daemon=True).start()
    return await future


class TerminalGate:
    """Asks the person at the terminal: the question and its preview on `console`, the
    answer read from stdin; `screen` (when the run is rendered) steps aside meanwhile."""

    def __init__(self, console: Console, screen: Pausable | None = None) -> None:
        self.console = console
        self.screen = screen

    def _read_line(self, prompt: str) -> str:
        self.console.print(prompt, end="", markup=False, highlight=False)
        self.console.file.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError("the terminal closed")
        return line.strip()

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        from rho_rpc.execute.screen import ask

        if self.screen is not None:
            self.screen.pause()
        try:
            return await _on_daemon_thread(lambda: ask(self.console, request, self._read_line))
        finally:
            if self.screen is not None:
                self.screen.resume()


__all__ = ["NO_TERMINAL", "UNCONFINED_NO_TERMINAL", "NoTerminalGate", "Pausable", "TerminalGate"]
