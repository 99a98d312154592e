"""Prompt-cache hits: cached ÷ input tokens per session and per last turn."""

from __future__ import annotations

import pytest

from rho_kernel.cache_hits import CacheHits, SessionCacheHits


def test_the_rate_is_cached_over_input_tokens_and_none_before_any_input() -> None:
    hits = CacheHits()
    assert hits.rate is None
    hits.add(1000, 250)
    hits.add(3000, 2750)
    assert (hits.cached_tokens, hits.input_tokens, hits.request_count) == (3000, 4000, 2)
    assert hits.rate == 0.75


@pytest.mark.parametrize(
    ("input_tokens", "cached_tokens", "counted"),
    [
        (100, 500, (100, 100)),  # more cached than sent: a provider's mistake, capped
        (100, -5, (0, 100)),  # a negative count is no count
        (-100, 50, (0, 0)),
        (0, 10, (0, 0)),
    ],
)
def test_a_provider_s_odd_counts_never_make_a_rate_outside_0_to_1(
    input_tokens: int, cached_tokens: int, counted: tuple[int, int]
) -> None:
    hits = CacheHits()
    hits.add(input_tokens, cached_tokens)
    assert (hits.cached_tokens, hits.input_tokens) == counted
    assert hits.rate is None or 0 <= hits.rate <= 1


def test_the_last_turn_is_the_turn_of_the_latest_request_and_the_session_sums_all() -> None:
    hits = SessionCacheHits()
    assert hits.of("s1") == (CacheHits(), None)
    hits.record("s1", "turn_a", input_tokens=100, cached_tokens=0)
    hits.record("s1", "turn_a", input_tokens=200, cached_tokens=150)
    session, turn = hits.of("s1")
    assert (session.cached_tokens, session.input_tokens, session.request_count) == (150, 300, 2)
    assert turn == session
    hits.record("s1", "turn_b", input_tokens=400, cached_tokens=360)
    session, turn = hits.of("s1")
    assert (session.cached_tokens, session.input_tokens) == (510, 700)
    assert turn is not None and (turn.cached_tokens, turn.input_tokens) == (360, 400)


def test_a_request_outside_a_turn_counts_for_the_session_only() -> None:
    hits = SessionCacheHits()
    hits.record("s1", "turn_a", input_tokens=100, cached_tokens=90)
    hits.record("s1", None, input_tokens=50, cached_tokens=0)  # a `compact`'s request
    session, turn = hits.of("s1")
    assert (session.cached_tokens, session.input_tokens) == (90, 150)
    assert turn is not None and (turn.cached_tokens, turn.input_tokens) == (90, 100)


def test_each_session_has_its_own_counts() -> None:
    hits = SessionCacheHits()
    hits.record("s1", "turn_a", input_tokens=100, cached_tokens=90)
    assert hits.of("s2") == (CacheHits(), None)  # nothing counted in s2 yet
    hits.record("s2", None, input_tokens=10, cached_tokens=0)
    session, turn = hits.of("s2")
    assert (session.input_tokens, turn) == (10, None)
    session, turn = hits.of("s1")  # back in s1: its own counts
    assert (session.cached_tokens, session.input_tokens) == (90, 100)
    assert turn == session


def test_what_of_gives_does_not_change_the_counts() -> None:
    hits = SessionCacheHits()
    hits.record("s1", "turn_a", input_tokens=100, cached_tokens=90)
    session, _ = hits.of("s1")
    session.add(1000, 0)
    assert hits.of("s1")[0].input_tokens == 100
