"""Live events of the agent loop, delivered to observers contributed by plugins."""

from __future__ import annotations

import inspect
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from rho_kernel.loop.result import (
        AgentResult,
        ContextCompacted,
        ProviderFailure,
        RequestUsage,
        UsageContext,
    )
    from rho_kernel.tools.base import Risk, ToolResult


class Observer:
    """Receives the loop's live events. Override the methods you need; all default to no-ops.

    Methods are awaited in order on the loop's task, so keep them quick; an exception raised by
    an observer is reported on stderr and never stops the loop.

    Events gain information by new keyword arguments only, and an override receives only the
    keyword arguments it declares (as pluggy passes a hook only the arguments an
    implementation names): an observer written before `call_id` existed keeps working.
    Every event of a turn comes with `turn_id` (added in 0.3), the id naming the prompt's
    turn (also `AgentResult.turn_id`); declare it to tell queued prompts apart.
    """

    #: Whether this observer shows a person the turn's retries and compactions itself (a
    #: front end drawing the run): the loop then does not also say them on stderr. Added
    #: in 0.3.
    shows_progress: ClassVar[bool] = False

    async def on_agent_start(self) -> None:
        """A prompt started running."""

    async def on_state_change(self, state: str) -> None:
        """The loop moved to `idle`, `thinking`, `awaiting_approval` or `executing_tool`."""

    async def on_text_delta(self, delta: str) -> None:
        """The model streamed a piece of its reply."""

    async def on_reasoning_delta(self, delta: str) -> None:
        """The model streamed a piece of reasoning."""

    async def on_tool_call(self, name: str, arguments: str, call_id: str | None = None) -> None:
        """The model called a tool (before interception and approval); `arguments` is the
        model's raw text. `call_id` (added in 0.2) names the call in every later event and in
        the session."""

    async def on_approval_requested(
        self, name: str, arguments: str, risk: Risk, call_id: str | None = None
    ) -> None:
        """The loop is waiting for the approval gate; `arguments` is the canonical JSON of
        exactly the arguments that will run. `call_id` added in 0.2."""

    async def on_tool_denied(self, name: str, call_id: str | None = None) -> None:
        """The gate (or a deny policy) refused a call. `call_id` added in 0.2."""

    async def on_tool_approved(
        self, name: str, rule: str, source: str, call_id: str | None = None
    ) -> None:
        """A call runs without asking because the approval rule `rule` (from `source`:
        `--allow`, `[approval] allow`, …) allows it, where the approval policy would have
        asked. Added in 0.3."""

    async def on_tool_output(
        self, name: str, stream: str, text: str, call_id: str | None = None
    ) -> None:
        """A running call produced live output (a chunk of `stream`: "stdout", "stderr", …),
        already redacted. Added in 0.2."""

    async def on_tool_result(
        self,
        name: str,
        result: ToolResult,
        call_id: str | None = None,
        full_output: str | None = None,
    ) -> None:
        """A call produced a result (including error results): `result.output` is what the
        model gets; when that was cut to fit the context window, `full_output` is the whole
        text (redacted, as the session keeps it), else None. `call_id` added in 0.2,
        `full_output` in 0.3."""

    async def on_usage(self, iteration: int, usage: RequestUsage, context: UsageContext) -> None:
        """A model response completed; `usage` is this request's tokens and cost, `context` the
        context window's statistics now and what fitting did to the request (0.2: typed
        objects rather than camelCase dicts)."""

    async def on_retry(self, attempt: int, max_attempts: int, delay: float, reason: str) -> None:
        """A model request failed with a retryable error; retry `attempt` of `max_attempts`
        starts after `delay` seconds. `reason` is the error, in words."""

    async def on_compaction_start(self, trigger: str) -> None:
        """Older turns are about to be folded into a summary; `trigger` says why: "auto"
        (the context reached `auto_compact_threshold`), "truncated" (a reply was cut off)
        or "manual" (the `compact` method). Added in 0.3."""

    async def on_context_compacted(self, compaction: ContextCompacted) -> None:
        """Older turns were folded into a summary: during a prompt (the context reached
        `auto_compact_threshold`, or a reply was cut off) or through the `compact` method.
        Added in 0.3."""

    async def on_agent_end(self, result: AgentResult) -> None:
        """The prompt finished (any finish reason); `result.tool_calls` holds every call the
        model made, also those that never ran."""

    async def on_agent_error(self, error: str, failure: ProviderFailure | None = None) -> None:
        """The prompt failed; `error` says why and what to do. `failure` (added in 0.3)
        describes a provider failure — the model could not be reached or refused the request
        — and is None for other failures."""


@cache
def _accepted(function: Any) -> frozenset[str] | None:
    """The keyword names `function` accepts, or None when it takes any (`**kwargs`)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )


def supported_keywords(method: Any, keywords: dict[str, Any]) -> dict[str, Any]:
    """The subset of `keywords` that the (bound) observer `method` declares."""
    if not keywords:
        return keywords
    accepted = _accepted(getattr(method, "__func__", method))
    if accepted is None:
        return keywords
    return {key: value for key, value in keywords.items() if key in accepted}


__all__ = ["Observer", "supported_keywords"]
