"""Messages made and recorded without pydantic's validator and serializer are exactly what
validation and `model_dump` give."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from rho_kernel import ChatMessage, ToolCall
from rho_kernel.messages import FunctionCall

_TEXT = st.text(max_size=30)


@given(_TEXT)
def test_system_and_user_messages_are_what_validation_makes(text: str) -> None:
    for role, made in (("system", ChatMessage.system(text)), ("user", ChatMessage.user(text))):
        validated = ChatMessage(role=role, content=text)
        assert made == validated
        assert made.model_fields_set == validated.model_fields_set
        assert made.to_record() == validated.model_dump(exclude_none=True)


_CALLS = st.none() | st.lists(
    st.builds(
        ToolCall,
        id=_TEXT,
        function=st.builds(FunctionCall, name=_TEXT, arguments=_TEXT),
    ),
    max_size=2,
)


@given(
    text=_TEXT,
    tool_calls=_CALLS,
    finish_reason=st.none() | st.sampled_from(["stop", "tool_calls", "length", "content_filter"]),
)
def test_assistant_messages_are_what_validation_makes(
    text: str, tool_calls: list[ToolCall] | None, finish_reason: Any
) -> None:
    made = ChatMessage.assistant(text, tool_calls=tool_calls, finish_reason=finish_reason)
    validated = ChatMessage(
        role="assistant", content=text, tool_calls=tool_calls or None, finish_reason=finish_reason
    )
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.to_record() == validated.model_dump(exclude_none=True)
    assert made.to_wire() == validated.to_wire()


@given(call_id=_TEXT, output=_TEXT, is_error=st.booleans())
def test_tool_results_are_what_validation_makes(call_id: str, output: str, is_error: bool) -> None:
    made = ChatMessage.tool_result(call_id, output, is_error)
    validated = ChatMessage(role="tool", content=output, tool_call_id=call_id, is_error=is_error)
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.to_record() == validated.to_record()


@pytest.mark.parametrize(
    "make",
    [
        lambda: ChatMessage.assistant("hi", finish_reason="exploded"),  # type: ignore[arg-type]
        lambda: ChatMessage.assistant("hi", finish_reason=["stop"]),  # type: ignore[arg-type]
        lambda: ChatMessage.assistant("hi", tool_calls=[{"id": 1}]),  # type: ignore[list-item]
        lambda: ChatMessage.tool_result("call_1", 42, False),  # type: ignore[arg-type]
    ],
)
def test_values_of_other_types_are_still_validated(make: Any) -> None:
    with pytest.raises(ValidationError):
        make()


@given(
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=_TEXT,
    tool_call_id=st.none() | _TEXT,
    finish_reason=st.none() | st.sampled_from(["stop", "tool_calls", "length"]),
    is_error=st.none() | st.booleans(),
    outline=st.none() | _TEXT,
)
def test_a_plain_record_is_what_model_dump_gives(
    role: str,
    content: str,
    tool_call_id: str | None,
    finish_reason: str | None,
    is_error: bool | None,
    outline: str | None,
) -> None:
    message = ChatMessage.model_validate(
        {
            "role": role,
            "content": content,
            "tool_call_id": tool_call_id,
            "finish_reason": finish_reason,
            "is_error": is_error,
            "outline": outline,
        }
    )
    expected = message.model_dump(exclude_none=True)
    if role == "tool":
        expected["is_error"] = bool(is_error)
    assert message.to_record() == expected
    assert list(message.to_record()) == list(expected)  # the same key order on disk


def test_a_message_that_is_not_plain_is_still_recorded_by_pydantic() -> None:
    message = ChatMessage.model_validate(
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "details": {"a": None}}
    )
    assert message.to_record() == {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
        "details": {"a": None},
    }


def test_the_plain_record_knows_every_field_of_a_message() -> None:
    # `ChatMessage._scalar_record` writes these fields by hand: a new field must join it.
    assert list(ChatMessage.model_fields) == [
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "finish_reason",
        "is_error",
        "outline",
        "details",
    ]
