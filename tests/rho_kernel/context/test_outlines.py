"""Outlines and summaries of messages, and the outline a tool makes of its result."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rho_kernel.context import (
    OUTLINE,
    SUMMARY,
    clip,
    downgrade,
    generic_outline,
    message_bytes,
    shrink_arguments,
    tool_outline,
)
from rho_kernel.context.outlines import ARGUMENT_BYTES, short_size
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.tools import Tool, ToolResult, tool


def test_clip_collapses_whitespace_and_marks_a_cut() -> None:
    assert clip("a  b\n\nc", 10) == "a b c"
    assert clip("x" * 20, 10) == "x" * 9 + "…"


def test_generic_outline_names_call_state_first_line_and_size() -> None:
    text = generic_outline("grep", {"pattern": "foo", "n": 3}, "a.py:1: foo\nb.py:2: foo", False)
    assert text == "grep(pattern=foo, n=3) → ok: a.py:1: foo b.py:2: foo (2 lines)"
    assert generic_outline("x", None, "", True) == "x() → error: (no output) (0 lines)"


class _Outlined(Tool):
    name = "probe"

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        return f"probe {arguments['path']}: {len(result.output)} chars"


class _Broken(Tool):
    name = "broken"

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        raise RuntimeError("boom")


def test_tool_outline_prefers_the_tools_own_and_falls_back_to_generic() -> None:
    result = ToolResult("hello")
    assert tool_outline(_Outlined(), "probe", {"path": "a"}, result) == "probe a: 5 chars"
    assert tool_outline(_Broken(), "broken", {}, result) == "broken() → ok: hello (1 line)"
    assert tool_outline(None, "gone", None, result) == "gone() → ok: hello (1 line)"

    @tool(outline=lambda arguments, result: "x" * 500)
    def long(a: str) -> str:
        """Long outline."""
        return a

    assert len(tool_outline(long, "long", {"a": "b"}, result)) == 200


# `shrink_arguments` keeps at most 8 keys and replaces a list by its size, so nesting deeper than
# a few leaves and more than a dozen keys reach no other branch: bounding them keeps every
# branch (lists, more keys than kept, caps of 48 and 160 bytes) and spares drawing thousands
# of leaves per example, which was nearly all of this test's time. Strings longer than the
# 12 and 40 characters kept are drawn on purpose (plain `st.text()` rarely reaches them).
_ARGUMENTS = st.dictionaries(
    st.text(max_size=30),
    st.recursive(st.none() | st.text() | st.text(min_size=13, max_size=80), st.lists, max_leaves=8),
    max_size=12,
)


@given(_ARGUMENTS)
def test_shrunk_arguments_are_valid_json_within_the_cap(value: dict[str, Any]) -> None:
    raw = json.dumps(value)
    for level in (OUTLINE, SUMMARY):
        shrunk = shrink_arguments(raw, level)
        assert isinstance(json.loads(shrunk), dict)
        assert len(shrunk.encode()) <= max(ARGUMENT_BYTES[level], len(raw.encode()))


def test_downgraded_messages_keep_call_ids_and_fit_their_planned_size() -> None:
    call = ToolCall(
        id="c1",
        function=FunctionCall(
            name="write_file", arguments=json.dumps({"path": "a.py", "content": "x" * 5000})
        ),
    )
    assistant = ChatMessage.assistant("I will write it.\nDetails follow", tool_calls=[call])
    result = ChatMessage.tool_result("c1", "wrote 5000 bytes", False)
    user = ChatMessage.user("please " * 100)
    for message, outline in (
        (assistant, None),
        (result, "write_file a.py: 5000 bytes"),
        (user, None),
    ):
        for level in (OUTLINE, SUMMARY):
            short = downgrade(message, level, outline)
            assert message_bytes(short) <= short_size(message, level, outline)
            assert short.text.startswith(("[outline] ", "[summary] ")) or short.text == ""
    short = downgrade(assistant, OUTLINE)
    assert short.tool_calls is not None and short.tool_calls[0].id == "c1"
    assert json.loads(short.tool_calls[0].function.arguments)["path"] == "a.py"
    assert downgrade(result, SUMMARY, "write_file a.py: 5000 bytes").tool_call_id == "c1"
    assert downgrade(user, OUTLINE).role == "user"
