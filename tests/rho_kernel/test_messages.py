"""Messages made and recorded without pydantic's validator and serializer are exactly what
validation and `model_dump` give."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rho_kernel import ChatMessage

_TEXT = st.text(max_size=30)


@given(_TEXT)
def test_system_and_user_messages_are_what_validation_makes(text: str) -> None:
    for role, made in (("system", ChatMessage.system(text)), ("user", ChatMessage.user(text))):
        validated = ChatMessage(role=role, content=text)
        assert made == validated
        assert made.model_fields_set == validated.model_fields_set
        assert made.to_record() == validated.model_dump(exclude_none=True)


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
