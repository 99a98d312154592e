"""Prompt-cache hits: how much of what rho sends, the provider says it read from its cache.

A model request's usage gives the input tokens the provider counted and how many of them it
read from its prompt cache (Chat Completions' `prompt_tokens_details.cached_tokens`,
Responses' `input_tokens_details.cached_tokens`), which it charges at the cached rate or, for
a local server, does not compute again. `CacheHits` sums them over some requests, and its
`rate` is cached ÷ input. `SessionCacheHits` keeps them for the current session (the
requests this process made in it) and for its last turn: `Runtime.cache_hits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class CacheHits:
    """The input tokens of some model requests and the part of them read from the cache."""

    cached_tokens: int = 0
    input_tokens: int = 0
    request_count: int = 0

    def add(self, input_tokens: int, cached_tokens: int, requests: int = 1) -> None:
        """Count a request's usage: a count below 0 counts as 0, and cached tokens beyond
        its input tokens (a provider's mistake) as its input tokens."""
        input_tokens = max(0, input_tokens)
        self.input_tokens += input_tokens
        self.cached_tokens += min(max(0, cached_tokens), input_tokens)
        self.request_count += max(0, requests)

    @property
    def rate(self) -> float | None:
        """cached ÷ input tokens, from 0 to 1; None while no input tokens were reported."""
        if self.input_tokens <= 0:
            return None
        return self.cached_tokens / self.input_tokens


@dataclass(slots=True)
class SessionCacheHits:
    """The cache hits of the model requests made in one session and in its last turn.

    `record` counts a request; the counts start over when a request is made in another
    session than the one counted (a new, resumed or forked session). `last_turn` is the
    last turn that made a model request — the running one while a prompt runs — and None
    before any.
    """

    session_id: str | None = None
    session: CacheHits = field(default_factory=CacheHits)
    turn_id: str | None = None
    last_turn: CacheHits | None = None

    def record(
        self,
        session_id: str,
        turn_id: str | None,
        *,
        input_tokens: int,
        cached_tokens: int,
        requests: int = 1,
    ) -> None:
        """Count a request made in the session `session_id`, during the turn `turn_id`
        (None outside a turn, e.g. the model request of a `compact`: the session's only)."""
        if session_id != self.session_id:
            self.session_id, self.session = session_id, CacheHits()
            self.turn_id = self.last_turn = None
        self.session.add(input_tokens, cached_tokens, requests)
        if turn_id is None:
            return
        if turn_id != self.turn_id or self.last_turn is None:
            self.turn_id, self.last_turn = turn_id, CacheHits()
        self.last_turn.add(input_tokens, cached_tokens, requests)

    def of(self, session_id: str) -> tuple[CacheHits, CacheHits | None]:
        """The hits of the session `session_id` and of its last turn: none yet while no
        request of it was counted."""
        if session_id != self.session_id:
            return CacheHits(), None
        return self.session, self.last_turn


__all__ = ["CacheHits", "SessionCacheHits"]
