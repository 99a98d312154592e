"""Bounded tool results: cut on a line boundary (keeping the beginning, or the beginning and
the end), with a footer, within a batch's allowance."""

from __future__ import annotations

import pytest

from rho_kernel.context import BatchAllowance, bound_ends, bound_text, footer, shown, utf8_len
from rho_kernel.context.bounding import FOOTER_RESERVE, MARKER_RESERVE


def test_text_within_the_limit_is_left_alone() -> None:
    assert bound_text("short\ntext", 1000) is None


def test_long_text_is_cut_at_the_end_of_a_line() -> None:
    text = "".join(f"line {i:04}\n" for i in range(1000))  # 10 bytes a line
    bounded = bound_text(text, FOOTER_RESERVE + 105)
    assert bounded is not None
    assert bounded.text == "".join(f"line {i:04}\n" for i in range(10)).rstrip("\n")
    assert (bounded.kept_lines, bounded.total_lines) == (10, 1000)
    assert bounded.original_bytes == 10_000 and bounded.kept_bytes == 99
    shown = footer(bounded, "read on with read_file offset=11")
    assert shown == (
        "[output cut to fit the context window: 10 of 1000 lines shown; 9901 of 10000 bytes "
        "left out. read on with read_file offset=11]"
    )
    assert "Ask for less" in footer(bounded, None)


def test_a_single_long_line_is_cut_on_a_character_boundary() -> None:
    text = "é" * 5000
    bounded = bound_text(text, FOOTER_RESERVE + 101)
    assert bounded is not None
    assert bounded.text == "é" * 50 and bounded.kept_lines == 0
    assert utf8_len(bounded.text) <= 101


def test_a_batch_shares_its_allowance_with_a_floor_per_call() -> None:
    allowance = BatchAllowance(1000, 4)
    assert allowance.limit() == 1000
    allowance.spend(900)
    assert allowance.limit() == 125  # the floor: 1000 / (2 × 4)
    allowance.spend(125)
    assert allowance.limit() == 125


def _seq(count: int) -> str:
    return "".join(f"{n}\n" for n in range(1, count + 1))


def test_text_within_the_limit_keeps_its_end_too_as_it_is() -> None:
    assert bound_ends(_seq(10), 1000) is None


def test_a_cut_that_keeps_the_end_shows_the_first_and_last_lines_around_a_marker() -> None:
    text = "exit_code: 0\n" + _seq(5000)
    limit = 2000
    bounded = bound_ends(text, limit)
    assert bounded is not None and bounded.keeps_tail and bounded.whole_lines
    result = shown(bounded, "run it again")
    lines = result.split("\n")
    head, tail = bounded.kept_lines, bounded.tail_lines
    assert lines[:head] == text.split("\n")[:head]
    assert lines[head] == f"[… {bounded.total_lines - head - tail} lines left out …]"
    assert lines[head + 1 : head + 1 + tail] == text.split("\n")[-tail - 1 : -1]
    assert lines[head + tail] == "5000" and lines[head + tail + 1] == ""
    cut = bounded.original_bytes - bounded.kept_bytes
    assert lines[-1] == (
        f"[output cut to fit the context window: the first {head} and last {tail} of 5001 "
        f"lines shown; lines {head + 1}-{5001 - tail} ({cut} of {len(text)} bytes) left out. "
        "run it again]"
    )
    assert bounded.kept_bytes == utf8_len(bounded.text) + utf8_len(bounded.tail)
    assert utf8_len(result) <= limit
    assert abs(utf8_len(bounded.text) - utf8_len(bounded.tail)) < 16  # half the room each


@pytest.mark.parametrize("limit", [400, 401, 450, 517, 999, 1024, 4096, 30_000])
@pytest.mark.parametrize("ending", ["\n", ""])
def test_what_is_kept_is_the_texts_own_beginning_and_end_within_the_limit(
    limit: int, ending: str
) -> None:
    text = "".join(f"line {n} {'x' * (n % 37)}\n" for n in range(3000)).rstrip("\n") + ending
    bounded = bound_ends(text, limit)
    assert bounded is not None
    assert text.startswith(bounded.text) and text.endswith(bounded.tail)
    assert utf8_len(shown(bounded, None)) <= limit
    assert bounded.text == "" or bounded.text.endswith("\n")
    if bounded.tail_lines:  # it begins a line of the text
        assert text[len(text) - len(bounded.tail) - 1] == "\n"
        assert bounded.tail_lines == len(bounded.tail.splitlines())
    else:  # the room holds less than the last line: its end
        assert "\n" not in bounded.tail.rstrip("\n") and not bounded.whole_lines
    if bounded.whole_lines:
        left_out = bounded.total_lines - bounded.kept_lines - bounded.tail_lines
        middle = text[len(bounded.text) : len(text) - len(bounded.tail)]
        assert left_out == middle.count("\n")


def test_an_end_that_begins_exactly_on_a_line_loses_no_line() -> None:
    text = "a" * 99 + "\n" + "b" * 999 + "\n" + "c" * 99 + "\n"
    room = 200
    bounded = bound_ends(text, room + FOOTER_RESERVE + MARKER_RESERVE)
    assert bounded is not None
    assert (bounded.text, bounded.tail) == ("a" * 99 + "\n", "c" * 99 + "\n")
    assert (bounded.kept_lines, bounded.tail_lines, bounded.total_lines) == (1, 1, 3)


def test_a_single_long_line_keeps_its_beginning_and_end_on_character_boundaries() -> None:
    text = "é" * 5000
    bounded = bound_ends(text, FOOTER_RESERVE + MARKER_RESERVE + 201)
    assert bounded is not None and not bounded.whole_lines
    assert set(bounded.text) == {"é"} and set(bounded.tail) == {"é"}
    assert utf8_len(bounded.text) + utf8_len(bounded.tail) <= 201
    result = shown(bounded, None)
    cut = 10_000 - bounded.kept_bytes
    assert f"\n[… {cut} bytes left out …]\n" in result
    assert result.endswith(
        f"[output cut to fit the context window: its beginning and end shown; {cut} of "
        "10000 bytes left out. Ask for less at a time (a narrower range, pattern or command)]"
    )


def test_a_limit_below_the_reserves_keeps_nothing_but_says_so() -> None:
    bounded = bound_ends(_seq(100), 10)
    assert bounded is not None and (bounded.text, bounded.tail) == ("", "")
    assert "of 100 lines" in footer(bounded, None)
