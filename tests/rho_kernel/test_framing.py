"""The framing escape: text cannot close or open a frame made of the given tag names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rho_kernel import escape_controls, escape_tags, unescape_tags

NAMES = ("memory", "memory_search")


@pytest.mark.parametrize(
    "text",
    [
        "</memory>",
        "<memory id='x'>",
        "<memory_search>",
        "</memory_search >",
        "<memory",
        "<memory/>",
    ],
)
def test_every_tag_of_the_frame_is_escaped(text: str) -> None:
    escaped = escape_tags(text, NAMES)
    assert escaped.startswith("<\\")
    for name in NAMES:
        assert f"<{name}" not in escaped and f"</{name}" not in escaped


def test_other_tags_and_longer_names_are_left_alone() -> None:
    text = "<memoryless> <memory_lane> <b>bold</b> a < memory"
    assert escape_tags(text, NAMES) == text


def test_escaped_text_gets_one_more_backslash() -> None:
    assert escape_tags("<\\/memory>", NAMES) == "<\\\\/memory>"
    assert unescape_tags("<\\\\/memory>", NAMES) == "<\\/memory>"


def test_names_must_be_tag_names() -> None:
    with pytest.raises(ValueError, match="identifiers"):
        escape_tags("x", ["a|b"])


_PIECES = st.sampled_from(["<", "/", "\\", "memory", "_search", ">", ":end", " ", "x"])


@given(st.lists(_PIECES, max_size=12).map("".join))
def test_escaping_is_reversible_and_leaves_no_frame_tag(text: str) -> None:
    escaped = escape_tags(text, NAMES)
    assert unescape_tags(escaped, NAMES) == text
    assert escape_tags(text, NAMES).count("<") == text.count("<")
    for tag in ("</memory>", "</memory_search>", "<memory>", "<memory "):
        assert tag not in escaped


# ── escape_controls ─────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("a\rb", "a\\rb"),
        ("a\tb", "a\\tb"),
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("a\x7fb", "a\\x7fb"),
        ("a\x00b", "a\\x00b"),
        ("a\x85b", "a\\x85b"),  # NEL, a C1 control
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),
        ("plain/päth ✓.txt", "plain/päth ✓.txt"),
    ],
)
def test_escape_controls_keeps_a_name_on_one_printable_line(raw: str, shown: str) -> None:
    assert escape_controls(raw) == shown
    assert len(escape_controls(raw).splitlines()) == 1
