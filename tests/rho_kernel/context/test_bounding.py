"""Bounded tool results: cut on a line boundary, with a footer, within a batch's allowance."""

from __future__ import annotations

from rho_kernel.context import BatchAllowance, bound_text, footer, utf8_len
from rho_kernel.context.bounding import FOOTER_RESERVE


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
