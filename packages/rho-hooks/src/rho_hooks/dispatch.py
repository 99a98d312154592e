"""Running an event's hooks: those that match, in parallel, each reported as a `hook/run`
notification, their outcomes combined (`rho_hooks.outcome.combine`).

One `HookState` per runtime, in its stash, holds the hooks read at startup. The hooks the
kernel calls without a runtime (`rho_before_tool_call`, `rho_after_tool_call`) find it
through `rho_hooks.current.CURRENT`, which `rho_prompt_starting` sets in the context of the
prompt's task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rho_hooks.names import matches
from rho_hooks.outcome import HookOutcome, combine, interpret, shown
from rho_hooks.payload import base_payload
from rho_hooks.runner import run_hook
from rho_kernel import diagnostics

if TYPE_CHECKING:
    from rho_hooks.sources import ConfiguredHook
    from rho_kernel import Runtime
    from rho_kernel.security import Redactor

#: Claude Code's name of each of rho's approval modes.
PERMISSION_MODES = {
    "ask": "default",
    "auto-edit": "acceptEdits",
    "read-only": "plan",
    "auto": "bypassPermissions",
}

#: The payload of a hook, given the name it matched through ("" for events without one).
PayloadOf = Callable[[str], dict[str, Any]]


@dataclass
class HookState:
    """The hooks of one runtime: every configured one (`configured`, for `listHooks`), the
    trusted ones by event, and the bound of a turn's Stop continuations."""

    runtime: Runtime
    configured: list[ConfiguredHook]
    max_stop_continuations: int = 3
    by_event: dict[str, list[ConfiguredHook]] = field(default_factory=dict)
    #: Work begun outside a prompt (SessionStart, Notification hooks), kept to its end.
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    #: The SessionStart hooks' run, whose context the first prompt takes.
    session_start: asyncio.Task[HookOutcome] | None = None

    def __post_init__(self) -> None:
        for configured in self.configured:
            if configured.trusted:
                self.by_event.setdefault(configured.event, []).append(configured)

    def has(self, event: str) -> bool:
        """Whether any trusted hook handles `event`."""
        return event in self.by_event

    def base(self, event: str) -> dict[str, Any]:
        """The fields every event's input has."""
        runtime = self.runtime
        path = runtime.session.path
        mode = str(runtime.permission_mode)
        payload = base_payload(
            event,
            session_id=runtime.session.id,
            transcript_path=str(path) if path is not None else "",
            cwd=str(runtime.root.path),
            permission_mode=PERMISSION_MODES.get(mode, mode),
        )
        payload["rho_permission_mode"] = mode
        return payload

    async def run(
        self, event: str, payload_of: PayloadOf, names: Sequence[str] = ()
    ) -> HookOutcome:
        """Run `event`'s hooks whose matcher matches one of `names` (every hook of the event
        when `names` is empty), in parallel; their combined outcome."""
        selected: list[tuple[ConfiguredHook, str]] = []
        for configured in self.by_event.get(event, ()):
            name = matches(configured.hook.matcher, names) if names else ""
            if name is not None:
                selected.append((configured, name))
        if not selected:
            return HookOutcome()
        outcomes = await asyncio.gather(
            *(self._run_one(event, configured, payload_of(name)) for configured, name in selected)
        )
        return combine(outcomes)

    async def _run_one(
        self, event: str, configured: ConfiguredHook, payload: dict[str, Any]
    ) -> HookOutcome:
        hook = configured.hook
        run = await run_hook(hook, payload, root=self.runtime.root, cancel=self.runtime.cancel)
        outcome = interpret(event, hook, run)
        if outcome.failure is not None:
            diagnostics.warn(f"{event} hook from {configured.path}: {outcome.failure}")
        report: dict[str, Any] = {
            "event": event,
            "hook": shown(hook.command),
            "source": str(configured.path),
            "outcome": outcome.outcome,
            "verdict": outcome.verdict,
            "durationMs": run.duration_ms,
            "exitCode": run.exit_code,
        }
        for key, text in (
            ("reason", outcome.reason),
            ("failure", outcome.failure),
            ("systemMessage", outcome.system_message),
        ):
            if text:
                report[key] = self._redactor().redact(text)
        self.runtime.notify("hook/run", report)
        return outcome

    def _redactor(self) -> Redactor:
        """What keeps secrets out of what the client is told of a run, as of tool output."""
        from rho_kernel.security import Redactor

        return Redactor.from_config(self.runtime.config.redaction)

    def later(self, work: Any) -> asyncio.Task[Any] | None:
        """Run `work` in the background (None, and `work` closed, without a running loop)."""
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:
            work.close()
            return None
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


__all__ = ["PERMISSION_MODES", "HookState", "PayloadOf"]
