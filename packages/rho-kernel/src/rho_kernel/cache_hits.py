"""Prompt-cache hits: how much of what rho sends, the provider says it read from its cache.

A model request's usage gives the input tokens the provider counted and how many of them it
read from its prompt cache (Chat Completions' `prompt_tokens_details.cached_tokens`,
Responses' `input_tokens_details.cached_tokens`), which it charges at the cached rate or, for
a local server, does not compute again. `CacheHits` sums them over some requests, and its
`rate` is cached ÷ input. `SessionCacheHits` keeps them per session (the requests this
process made in it) and for each session's last turn: `Runtime.cache_hits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


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
class _Counted:
    """The hits of one session's requests, and of its last turn that made one."""

    session: CacheHits = field(default_factory=CacheHits)
    turn_id: str | None = None
    last_turn: CacheHits | None = None


@dataclass(slots=True)
class SessionCacheHits:
    """The cache hits of the model requests this process made, per session and per last turn.

    `record` counts a request in the session it was made in; `of` gives a session's hits and
    those of its last turn that made a model request — the running one while a prompt runs —
    (None before any). A session this process made no request in has none yet, also when an
    earlier process did (providers' usage is not kept in the session file).
    """

    _sessions: dict[str, _Counted] = field(default_factory=dict, init=False, repr=False)

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
        counted = self._sessions.get(session_id)
        if counted is None:
            counted = self._sessions[session_id] = _Counted()
        counted.session.add(input_tokens, cached_tokens, requests)
        if turn_id is None:
            return
        if turn_id != counted.turn_id or counted.last_turn is None:
            counted.turn_id, counted.last_turn = turn_id, CacheHits()
        counted.last_turn.add(input_tokens, cached_tokens, requests)

    def of(self, session_id: str) -> tuple[CacheHits, CacheHits | None]:
        """The hits of the session `session_id` and of its last turn (copies)."""
        counted = self._sessions.get(session_id)
        if counted is None:
            return CacheHits(), None
        turn = counted.last_turn
        return replace(counted.session), replace(turn) if turn is not None else None


__all__ = ["CacheHits", "SessionCacheHits"]
