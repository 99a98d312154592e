"""The provider-neutral request, stream events, usage and errors every protocol service speaks."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rho_kernel.encoding import scrub_surrogates
from rho_kernel.messages import ToolCall
from rho_kernel.providers.urls import mask_url, mask_urls_in

if TYPE_CHECKING:
    from rho_kernel.providers.cache_hints import CacheHints


def token_count(value: Any) -> int:
    """A token count from a provider's JSON: integers (finite floats truncated); anything
    else — `Infinity` and `NaN` too, which JSON parsing lets through — is 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return 0


@dataclass(slots=True)
class Usage:
    """Token usage reported by a model for one request (or summed over several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    cost: float | None = None  # provider-reported cost, when the provider sends one

    def add(self, other: Usage) -> None:
        """Accumulate `other` into this usage."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_tokens += other.cached_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.total_tokens += other.total_tokens
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost


def _finite_cost(value: Any) -> float | None:
    """A reported cost: a finite number, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        cost = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return cost if math.isfinite(cost) else None


def usage_from_payload(data: dict[str, Any], *, input_key: str, output_key: str) -> Usage:
    """Read a provider's usage object: `<input_key>`/`<output_key>` counts and their
    `*_details` (`cached_tokens`, `reasoning_tokens`), `total_tokens`, and a reported `cost`
    (a finite number, else none).

    Chat Completions names them `prompt_tokens`/`completion_tokens`, Responses
    `input_tokens`/`output_tokens`.
    """

    def detail(key: str, name: str) -> int:
        details = data.get(f"{key}_details")
        return token_count(details.get(name)) if isinstance(details, dict) else 0

    input_tokens = token_count(data.get(input_key))
    output_tokens = token_count(data.get(output_key))
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_tokens=detail(input_key, "cached_tokens"),
        reasoning_tokens=detail(output_key, "reasoning_tokens"),
        total_tokens=token_count(data.get("total_tokens")) or input_tokens + output_tokens,
        cost=_finite_cost(data.get("cost")),
    )


@dataclass(slots=True)
class ModelRequest:
    """One request to a model: wire-neutral messages (Chat Completions shaped dicts) and tools.

    `tools` holds `{"name", "description", "parameters"}` dicts; each protocol service
    renders them in its own shape. `cache` holds the hints for the provider's prompt cache
    that this provider takes (None: none; see `providers.cache_hints`): a service renders
    those its wire protocol has.
    """

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    cache: CacheHints | None = None


@dataclass(slots=True)
class TextDelta:
    """A piece of the assistant's reply text."""

    text: str


@dataclass(slots=True)
class ReasoningDelta:
    """A piece of reasoning (chain of thought or its summary)."""

    text: str


@dataclass(slots=True)
class ModelResponse:
    """The whole decoded response: the last event of every successful stream."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None


StreamEvent = TextDelta | ReasoningDelta | ModelResponse


class ProviderError(Exception):
    """A failed model request.

    `kind` is one of "connect" (nothing answered), "http" (an error status), "timeout",
    "stream" (an error inside the stream) or "decode" (a malformed body). `reason` narrows a
    "connect" failure: "refused", "dns" (the host name is unknown), "dns_temporary", "tls",
    "timeout", "unreachable", "closed" (dropped before a response) or "invalid_url" ("" when
    unknown). `retryable` tells the loop whether backing off and retrying may help;
    `retry_after` is the server's hint in seconds.

    `message` says what happened; `hint` (may be "") what to do about it, in general terms
    (the agent loop replaces it with advice that fits how the provider was chosen).
    `str(error)` is both, as one text.

    The texts and `endpoint` are shown to people, so URL credentials in them are masked
    (`mask_url`) and lone surrogates replaced, whatever the code that raised the error passed.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        provider: str = "",
        endpoint: str = "",
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        reason: str = "",
        hint: str = "",
    ) -> None:
        message = scrub_surrogates(mask_urls_in(message))
        hint = scrub_surrogates(mask_urls_in(hint))
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.provider = provider
        self.endpoint = mask_url(endpoint)
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.reason = reason
        self.hint = hint

    @property
    def text(self) -> str:
        """The message followed by the hint, as one text."""
        return join_hint(self.message, self.hint)

    def __str__(self) -> str:
        return self.text


def join_hint(message: str, hint: str) -> str:
    """`message` and `hint` as one text: "what happened. What to do." (`message` alone when
    there is no hint)."""
    if not hint:
        return message
    return f"{message.rstrip().rstrip('.')}. {hint}"


__all__ = [
    "ModelRequest",
    "ModelResponse",
    "ProviderError",
    "ReasoningDelta",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "join_hint",
    "token_count",
    "usage_from_payload",
]
