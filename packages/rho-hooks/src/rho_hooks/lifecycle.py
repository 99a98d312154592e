"""The hooks' state through a runtime's life: read at startup (when `[hooks]` names any,
or Claude Code's settings are to be read), SessionStart begun then, SessionEnd run at
shutdown, and the observer that runs PreCompact and Notification hooks."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from rho_kernel import Observer

if TYPE_CHECKING:
    from rho_hooks.config import HooksTable
    from rho_hooks.dispatch import HookState
    from rho_kernel import Runtime

#: The longest shutdown waits for the SessionEnd hooks, in seconds.
MAX_SESSION_END_WAIT = 30.0


def start(runtime: Runtime, table: HooksTable) -> None:
    """Read the runtime's hooks into its stash (`table`: the merged `[hooks]`) and begin
    its SessionStart hooks."""
    from rho_hooks.current import STATE
    from rho_hooks.dispatch import HookState
    from rho_hooks.sources import read_hooks

    configured = read_hooks(runtime.root.path, runtime.options.home, runtime.plugins.report)
    state = HookState(runtime, configured, table.max_stop_continuations)
    runtime.stash[STATE] = state
    if state.has("SessionStart"):
        from rho_hooks.events import session_start

        source = "resume" if runtime.session.path_messages()[1:] else "startup"
        state.session_start = state.later(session_start(state, source))


def end(state: HookState) -> None:
    """Run the SessionEnd hooks on a thread of their own (shutdown may come from inside the
    event loop), waiting at most `MAX_SESSION_END_WAIT` seconds."""
    from rho_hooks.events import session_end

    def run() -> None:
        asyncio.run(session_end(state, "other"))

    worker = threading.Thread(target=run, name="rho-hooks SessionEnd", daemon=True)
    worker.start()
    worker.join(MAX_SESSION_END_WAIT)


class HookObserver(Observer):
    """Runs the PreCompact hooks before a compaction and the Notification hooks when a call
    waits for approval (the question is sent once they have run)."""

    def __init__(self, state: HookState) -> None:
        self.state = state

    async def on_compaction_start(self, trigger: str) -> None:
        if self.state.has("PreCompact"):
            from rho_hooks.events import pre_compact

            await pre_compact(self.state, "manual" if trigger == "manual" else "auto")

    async def on_approval_requested(self, name: str, *args: Any, **kwargs: Any) -> None:
        if self.state.has("Notification"):
            from rho_hooks.events import notification

            await notification(self.state, name)


__all__ = ["MAX_SESSION_END_WAIT", "HookObserver", "end", "start"]
