"""A prompt's arguments from a command's text."""

from __future__ import annotations

import mcp_types as types
import pytest

from rho_kernel import ToolError
from rho_mcp.prompts import prompt_arguments

DECLARED = [
    types.PromptArgument(name="path", required=True),
    types.PromptArgument(name="focus", required=False),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("src/a.rs", {"path": "src/a.rs"}),
        ("src/a.rs errors", {"path": "src/a.rs", "focus": "errors"}),
        ("focus=speed src/a.rs", {"path": "src/a.rs", "focus": "speed"}),
        ("src/a.rs error handling", {"path": "src/a.rs", "focus": "error handling"}),
        ("'my file.rs'", {"path": "my file.rs"}),
        ("path=x other=y", {"path": "x", "focus": "other=y"}),
    ],
)
def test_words_fill_the_arguments(text: str, expected: dict[str, str]) -> None:
    assert prompt_arguments(DECLARED, text) == expected


@pytest.mark.parametrize(
    ("declared", "text", "words"),
    [
        (DECLARED, "", "needs path"),
        (DECLARED, "'unclosed", "cannot be read"),
        ([], "extra", "takes no more"),
    ],
)
def test_a_wrong_text_says_why(declared: list[types.PromptArgument], text: str, words: str) -> None:
    with pytest.raises(ToolError, match=words):
        prompt_arguments(declared, text)
