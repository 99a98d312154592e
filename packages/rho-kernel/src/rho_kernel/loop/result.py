"""What a finished prompt returns: `AgentResult` and its parts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rho_kernel.providers.events import Usage

FinishReason = Literal[
    "stop", "max_iterations", "cancelled", "retry_budget_exhausted", "consecutive_empty_responses"
]
OutcomeKind = Literal["success", "error", "denied", "blocked"]


@dataclass(slots=True)
class ToolCallRecord:
    """One tool call of the run: what was called, how it ended and how long it took.

    `call_id` is the tool-call id as kept in the session (the model's, or a generated one).
    """

    name: str
    arguments: str
    outcome: OutcomeKind
    output: str | None = None
    duration_ms: int | None = None
    call_id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        outcome: dict[str, Any] = {"kind": self.outcome}
        if self.outcome != "success" and self.output is not None:
            outcome["output"] = self.output
        record: dict[str, Any] = {
            "callId": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "outcome": outcome,
        }
        if self.duration_ms is not None:
            record["durationMs"] = self.duration_ms
        return record


@dataclass(slots=True)
class RunUsage:
    """Token usage and cost summed over the run's model requests."""

    tokens: Usage = field(default_factory=Usage)
    total_cost: float = 0.0
    request_count: int = 0

    def to_wire(self) -> dict[str, Any]:
        return {
            "inputTokens": self.tokens.input_tokens,
            "outputTokens": self.tokens.output_tokens,
            "cachedTokens": self.tokens.cached_tokens,
            "totalTokens": self.tokens.input_tokens + self.tokens.output_tokens,
            "totalCost": self.total_cost,
            "requestCount": self.request_count,
        }


@dataclass(slots=True)
class AgentResult:
    """The structured outcome of one prompt (every ending, including cancellation)."""

    reply: str
    iterations: int
    usage: RunUsage
    tool_calls: list[ToolCallRecord]
    duration_ms: int
    finish_reason: FinishReason

    def to_wire(self) -> dict[str, Any]:
        """The `agent/end` notification's params."""
        return {
            "reply": self.reply,
            "iterations": self.iterations,
            "usage": self.usage.to_wire(),
            "toolCalls": [call.to_wire() for call in self.tool_calls],
            "durationMs": self.duration_ms,
            "finishReason": self.finish_reason,
        }


class AgentError(Exception):
    """A prompt failed (provider error, unreachable endpoint, session failure).

    `category` is one of client, agent, session, sandbox, tool — as recorded in the session's
    `rho.turn_error.v1` entry.
    """

    def __init__(self, message: str, category: str = "agent") -> None:
        super().__init__(message)
        self.message = message
        self.category = category


__all__ = ["AgentError", "AgentResult", "FinishReason", "OutcomeKind", "RunUsage", "ToolCallRecord"]
