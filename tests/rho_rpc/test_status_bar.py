"""The status bar's text and colour."""

from __future__ import annotations

import pytest

from rho_kernel.cache_hits import CacheHits
from rho_kernel.context.fitting import FitResult
from rho_kernel.session.stats import ContextStats
from rho_rpc.status_bar import colour_of, short_tokens, status_line


def stats(used: int, window: int = 32768, reserve: int = 8192, messages: int = 10) -> ContextStats:
    return ContextStats(
        context_window=window,
        completion_reserve=reserve,
        estimated_used=used,
        message_count=messages,
    )


def fitted(tokens: int, budget: int = 24576, outlined: int = 0, evicted: int = 0) -> FitResult:
    return FitResult(
        messages=[],
        estimated_tokens=tokens,
        budget_tokens=budget,
        outlined=outlined,
        summarized=0,
        evicted=evicted,
        measured=0,
        rebuilt=False,
    )


def test_the_line_shows_the_path_and_what_is_sent_labelled() -> None:
    assert status_line(stats(12288), fitted(12288)) == (
        "[██████████░░░░░░░░░░] path 12.3k/32.8k tokens (50%) │ sent 12.3k (50%) │ "
        "12.3k remaining │ 10 messages"
    )
    line = status_line(stats(0, messages=1), fitted(0))
    assert line.startswith("[░░░░░░░░░░░░░░░░░░░░] path 0/32.8k")
    assert line.endswith("│ 1 message")


def test_what_fitting_did_is_shown_next_to_what_is_sent() -> None:
    # The path is over the budget; the model receives a fitted view within it.
    line = status_line(stats(30_000), fitted(20_000, outlined=4, evicted=7))
    assert "path 30k/32.8k tokens (100%)" in line
    assert "│ sent 20k (81%, 4 outlined, 7 left out) │" in line
    assert "sent: does not fit" in status_line(stats(99_000), None)


def hits(input_tokens: int, cached_tokens: int) -> CacheHits:
    counted = CacheHits()
    counted.add(input_tokens, cached_tokens)
    return counted


def test_the_cache_hit_rate_of_the_session_and_the_last_turn_ends_the_line() -> None:
    line = status_line(stats(12288), fitted(12288), cache=(hits(4000, 3480), hits(1000, 920)))
    assert line.endswith("│ 10 messages │ cache 87% (last turn 92%)")
    # Whole percent rounded down: 100 only when every input token was read from the cache.
    assert status_line(stats(1), cache=(hits(1000, 999), None)).endswith("│ cache 99%")
    assert status_line(stats(1), cache=(hits(5, 5), hits(5, 5))).endswith(
        "│ cache 100% (last turn 100%)"
    )


def test_no_cache_figure_while_the_provider_reported_no_input_tokens() -> None:
    plain = status_line(stats(12288), fitted(12288))
    assert status_line(stats(12288), fitted(12288), cache=(CacheHits(), None)) == plain
    assert status_line(stats(12288), fitted(12288), cache=(hits(10, 0), CacheHits())) == (
        plain + " │ cache 0%"
    )


def test_an_overfull_context_fills_the_bar_and_nothing_goes_negative() -> None:
    line = status_line(stats(99_000))
    assert line.startswith("[" + "█" * 20 + "]")
    assert "(100%)" in line and "│ 0 remaining │" in line
    assert status_line(stats(5, window=10, reserve=10)).startswith("[" + "█" * 20 + "]")


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1k"),
        (12_345, "12.3k"),
        (32_768, "32.8k"),
        (2_500_000, "2.5M"),
    ],
)
def test_short_tokens(count: int, text: str) -> None:
    assert short_tokens(count) == text


@pytest.mark.parametrize(
    ("percent", "colour"),
    [(0, "green"), (59.9, "green"), (60, "yellow"), (80, "yellow"), (80.1, "red"), (100, "red")],
)
def test_colour_thresholds(percent: float, colour: str) -> None:
    assert colour_of(percent) == colour
