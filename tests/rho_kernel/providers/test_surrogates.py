"""Joining surrogate pairs split across streamed text pieces."""

from __future__ import annotations

from rho_kernel.providers.surrogates import SurrogateJoiner

HIGH, LOW = "\ud83d", "\ude00"  # the two halves of U+1F600 😀


def test_a_pair_split_across_pieces_is_joined() -> None:
    joiner = SurrogateJoiner()
    assert joiner.push("hi " + HIGH) == "hi "
    assert joiner.push(LOW + "!") == "😀!"
    assert joiner.flush() == ""


def test_a_piece_that_is_only_the_high_half_emits_nothing_yet() -> None:
    joiner = SurrogateJoiner()
    assert joiner.push(HIGH) == ""
    assert joiner.push(LOW) == "😀"


def test_a_high_half_never_completed_is_flushed_as_replacement() -> None:
    joiner = SurrogateJoiner()
    assert joiner.push("end" + HIGH) == "end"
    assert joiner.flush() == "\ufffd"
    assert joiner.flush() == ""


def test_lone_halves_become_replacement_characters() -> None:
    joiner = SurrogateJoiner()
    assert joiner.push(LOW + "a" + HIGH + "b") == "\ufffda\ufffdb"
    assert joiner.push(HIGH) == ""
    assert joiner.push("c") == "\ufffdc"


def test_plain_text_passes_through() -> None:
    joiner = SurrogateJoiner()
    assert joiner.push("héllo 😀") == "héllo 😀"
    assert joiner.flush() == ""
