"""TOML from a repository or another program: absurd nesting is an error, never a crash."""

from __future__ import annotations

import pytest

from rho_kernel.tomlparse import MAX_TOML_DEPTH, TomlError, nesting_depth, parse_toml

DEEP = 5000


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * DEEP + "]" * DEEP,
        "a = " + "{b = " * DEEP + "1" + "}" * DEEP,
        "a = " + "[{b = " * DEEP + "1" + "}]" * DEEP,
        "a = " + "[" * (MAX_TOML_DEPTH + 1) + "]" * (MAX_TOML_DEPTH + 1),
        "[" + ".".join(["t"] * (MAX_TOML_DEPTH + 1)) + "]\nx = 1",
    ],
)
def test_nesting_past_the_limit_is_a_toml_error(text: str) -> None:
    with pytest.raises(TomlError, match="nested more than 64 levels deep"):
        parse_toml(text)


def test_ordinary_toml_parses_and_invalid_toml_says_why() -> None:
    assert parse_toml('[agent]\nmodel = "m"\n[[providers]]\nname = "x"\n') == {
        "agent": {"model": "m"},
        "providers": [{"name": "x"}],
    }
    inner = MAX_TOML_DEPTH - 1  # the document's own table is the first level
    nested = "a = " + "[" * inner + "]" * inner
    assert nesting_depth(parse_toml(nested)) == MAX_TOML_DEPTH
    with pytest.raises(TomlError, match=r"^invalid TOML: "):
        parse_toml("a = ")
