"""Tool names: `mcp__<server>__<tool>`, valid for every model API, never colliding."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from rho_mcp.naming import tool_name, unique_name

VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def test_plain_names_are_kept() -> None:
    assert tool_name("github", "search_issues") == "mcp__github__search_issues"
    assert tool_name("my__srv", "a__b") == "mcp__my__srv__a__b"


def test_other_characters_become_underscores() -> None:
    assert tool_name("docs", "get.page v2") == "mcp__docs__get_page_v2"


def test_a_long_name_is_cut_with_a_hash_of_the_whole() -> None:
    first, second = tool_name("s", "t" * 200), tool_name("s", "t" * 200 + "x")
    assert len(first) == len(second) == 64 and first != second
    assert first.startswith("mcp__s__ttt") and first == tool_name("s", "t" * 200)


def test_a_taken_name_gets_a_distinct_one() -> None:
    taken = {tool_name("s", "a.b")}
    other = unique_name("s", "a_b", taken)
    assert other != "mcp__s__a_b" and VALID.fullmatch(other)


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=300))
def test_every_name_is_valid(server: str, tool: str) -> None:
    assert VALID.fullmatch(tool_name(server, tool))


@given(st.lists(st.text(min_size=1, max_size=120), min_size=1, max_size=20, unique=True))
def test_names_given_in_turn_never_collide(tools: list[str]) -> None:
    taken: set[str] = set()
    for tool in tools:
        name = unique_name("srv", tool, taken)
        assert name not in taken and VALID.fullmatch(name)
        taken.add(name)
