"""Live events of the agent loop, delivered to observers contributed by plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rho_kernel.loop.result import AgentResult
    from rho_kernel.tools.base import Risk, ToolResult


class Observer:
    """Receives the loop's live events. Override the methods you need; all default to no-ops.

    Methods are awaited in order on the loop's task, so keep them quick; an exception raised by
    an observer is reported on stderr and never stops the loop.
    """

    async def on_agent_start(self) -> None:
        """A prompt started running."""

    async def on_state_change(self, state: str) -> None:
        """The loop moved to `idle`, `thinking`, `awaiting_approval` or `executing_tool`."""

    async def on_text_delta(self, delta: str) -> None:
        """The model streamed a piece of its reply."""

    async def on_reasoning_delta(self, delta: str) -> None:
        """The model streamed a piece of reasoning."""

    async def on_tool_call(self, name: str, arguments: str) -> None:
        """The model called a tool (before interception and approval)."""

    async def on_approval_requested(self, name: str, arguments: str, risk: Risk) -> None:
        """The loop is waiting for the approval gate; `arguments` is the canonical JSON of
        exactly the arguments that will run."""

    async def on_tool_denied(self, name: str) -> None:
        """The gate denied a call."""

    async def on_tool_result(self, name: str, result: ToolResult) -> None:
        """A call produced a result (including error results)."""

    async def on_usage(
        self, iteration: int, usage: dict[str, Any], context: dict[str, Any]
    ) -> None:
        """A model response completed; `usage` is this iteration's, `context` a live snapshot."""

    async def on_retry(self, attempt: int, max_attempts: int, delay: float, reason: str) -> None:
        """A model request failed with a retryable error; retry `attempt` of `max_attempts`
        starts after `delay` seconds. `reason` is the error, in words."""

    async def on_agent_end(self, result: AgentResult) -> None:
        """The prompt finished (any finish reason)."""

    async def on_agent_error(self, error: str) -> None:
        """The prompt failed."""


__all__ = ["Observer"]
