"""What a finished prompt returns: `AgentResult` and its parts."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rho_kernel.providers.events import Usage

if TYPE_CHECKING:
    from rho_kernel.context.fitting import FitResult
    from rho_kernel.providers.catalog import ModelCatalog
    from rho_kernel.session.stats import ContextStats

FinishReason = Literal["stop", "max_iterations", "cancelled", "consecutive_empty_responses"]
#: How a tool call ended; "cancelled": it was stopped, or never ran, because the turn was
#: cancelled (abort, the client going away) or redirected.
OutcomeKind = Literal["success", "error", "denied", "blocked", "cancelled"]
#: What a model request was for: a turn of the conversation, or an LLM compaction's summary.
RequestKind = Literal["turn", "compaction"]
#: What started a compaction: the context reached `auto_compact_threshold` ("auto"), a reply
#: was cut off at the output token limit ("truncated"), or the `compact` method ("manual").
CompactionTrigger = Literal["auto", "truncated", "manual"]


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


@dataclass(slots=True)
class RunUsage:
    """Token usage and cost summed over the run's model requests."""

    tokens: Usage = field(default_factory=Usage)
    total_cost: float = 0.0
    request_count: int = 0


@dataclass(slots=True)
class AgentResult:
    """The structured outcome of one prompt (every ending, including cancellation).

    `reply` is the assistant's final text, as streamed and stored in the session. `reasoning`
    is that reply's reasoning when `[agent] show_reasoning` is on and the model sent some
    (None otherwise). `turn_id` names the turn: every event of it carried the same id.
    """

    reply: str
    iterations: int
    usage: RunUsage
    tool_calls: list[ToolCallRecord]
    duration_ms: int
    finish_reason: FinishReason
    reasoning: str | None = None
    turn_id: str | None = None


@dataclass(frozen=True, slots=True)
class RequestUsage:
    """Tokens and cost of one model request (what `Observer.on_usage` receives as `usage`).

    `cost` is the catalog's price of the request, or the provider's reported cost, or 0.
    `kind` is "compaction" for the request an LLM compaction strategy made to summarize
    turns (counted like any other), "turn" for the conversation's own requests.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    request_count: int = 1
    kind: RequestKind = "turn"

    @classmethod
    def of(cls, usage: Usage | None, cost: float, kind: RequestKind = "turn") -> RequestUsage:
        """The usage of one response (`usage` None: the provider reported none)."""
        if usage is None:
            return cls(cost=cost, kind=kind)
        return cls(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_tokens=usage.cached_tokens,
            cost=cost,
            kind=kind,
        )


def request_cost(
    usage: Usage | None, catalog: ModelCatalog | None, model: str, provider: str
) -> float:
    """A response's cost: the catalog's price when there is a catalog, else the provider's
    reported cost, else 0."""
    if usage is None:
        return 0.0
    if catalog is not None:
        return catalog.cost(model, usage, provider) or 0.0
    return usage.cost if usage.cost is not None else 0.0


@dataclass(frozen=True, slots=True)
class UsageContext:
    """The context window right after a model request (`Observer.on_usage`'s `context`).

    `stats` is the current path's statistics (None when the loop has no context meter),
    `fitted` what fitting the conversation into the prompt budget did to the request just
    sent (None when the request was not fitted).
    """

    stats: ContextStats | None = None
    fitted: FitResult | None = None


@dataclass(frozen=True, slots=True)
class ProviderFailure:
    """Why the model could not be reached, or refused the request: the one shape of every
    provider failure that ends a prompt (`AgentError.failure`).

    `kind` and `reason` are `ProviderError`'s ("connect"/"refused", "http", "timeout",
    "stream", "decode"); `status` the HTTP status, when one came; `attempts` the requests
    sent (1 + the retries); `retryable` whether sending the prompt again later may work;
    `hint` what to do, fitting how the provider was chosen. `endpoint` is shown masked.
    """

    kind: str
    provider: str
    endpoint: str
    attempts: int
    retryable: bool
    hint: str
    reason: str = ""
    status: int | None = None


@dataclass(frozen=True, slots=True)
class ContextCompacted:
    """A compaction that wrote a summary (`Observer.on_context_compacted` receives it).

    `entries_compacted` session entries were folded into the summary entry `summary_id`;
    the path's estimated tokens went from `tokens_before` to `tokens_after`. `strategy` is
    the strategy whose summary was written, `requested` the one asked for (they differ after
    a fallback to "mechanical").
    """

    trigger: CompactionTrigger
    strategy: str
    requested: str
    entries_compacted: int
    tokens_before: int
    tokens_after: int
    summary_id: str | None = None


class AgentError(Exception):
    """A prompt failed (provider error, unreachable endpoint, session failure).

    `category` is one of client, agent, session, sandbox, tool — as recorded in the session's
    `rho.turn_error.v1` entry. `failure` describes a provider failure (category "client"):
    the model could not be reached or refused the request, after every retry allowed.
    `turn_id` names the turn that failed (set by the loop).
    """

    def __init__(
        self, message: str, category: str = "agent", *, failure: ProviderFailure | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.category = category
        self.failure = failure
        self.turn_id: str | None = None


def new_turn_id() -> str:
    """A fresh turn id (`turn_` and 12 hex digits), unique within a process."""
    return f"turn_{secrets.token_hex(6)}"


__all__ = [
    "AgentError",
    "AgentResult",
    "CompactionTrigger",
    "ContextCompacted",
    "FinishReason",
    "OutcomeKind",
    "ProviderFailure",
    "RequestKind",
    "RequestUsage",
    "RunUsage",
    "ToolCallRecord",
    "UsageContext",
    "new_turn_id",
    "request_cost",
]
