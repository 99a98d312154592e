"""The examples in regex hints are right: the pattern with the offending characters escaped
is valid and matches the text the pattern was meant to find."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from rho_tools_fs.regex_hints import bare_repetitions_escaped, escaped, regex_hint


@given(st.text(alphabet="ab([)]*+?{}.", max_size=30))
def test_escaping_the_special_characters_matches_the_text_itself(text: str) -> None:
    example = escaped(text, "([)]*+?{}.")
    assert re.fullmatch(example, text)


def test_escapes_already_there_are_kept() -> None:
    assert escaped(r"\(a(", "(") == r"\(a\("
    assert escaped("a\\", "(") == "a\\"
    assert bare_repetitions_escaped("*a(+b)|?c**") == r"\*a(\+b)|\?c*\*"
    assert bare_repetitions_escaped(r"\**") == r"\**"


def test_a_huge_pattern_is_not_repeated_in_its_hint() -> None:
    pattern = "(" + "x" * 10_000
    hint = regex_hint(pattern, "unclosed group")
    assert len(hint) < 400 and "fixed_strings" in hint


def test_without_fixed_strings_the_hint_does_not_offer_it() -> None:
    for error in ("unclosed group", "nothing to repeat", "bad escape \\q", "whatever"):
        hint = regex_hint("a(", error, fixed_strings=False)
        assert "fixed_strings" not in hint and hint.endswith(".")
