"""`getMessages`: the messages of the current branch."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import Result, Wire


class MessageFunction(Wire):
    """The function a tool call names, with its arguments as the model wrote them."""

    name: str
    arguments: str = Field(description="The arguments: a JSON string, as the model sent it.")


class MessageToolCall(Wire):
    """One tool call of an assistant message."""

    id: str
    type: Literal["function"]
    function: MessageFunction


class MessageText(Wire):
    """A text block of a message whose content is a list (as some session files hold it)."""

    type: Literal["text"]
    text: str


class MessageImageUrl(Wire):
    """Where an image is: a `data:` URL holding it (`data:image/png;base64,…`)."""

    url: str


class MessageImage(Wire):
    """An image of a user message (the list form of its content, after its text)."""

    type: Literal["image_url"]
    image_url: MessageImageUrl


class FullOutput(Wire):
    """The whole result of a tool call whose result was cut to fit the context window."""

    original_size: int = Field(description="The size of the whole output, in bytes.")
    content: str


class MessageDetails(Wire):
    """What a tool message keeps besides the result the model sees."""

    FullOutput: FullOutput


class ChatMessage(Wire):
    """A message of the conversation (the Chat Completions shape, with rho's own fields)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[MessageText | MessageImage]
    tool_calls: list[MessageToolCall] | None = Field(
        None, description="An assistant message's tool calls."
    )
    finish_reason: Literal["stop", "tool_calls", "length", "content_filter"] | None = Field(
        None, description="Why an assistant message ended."
    )
    tool_call_id: str | None = Field(None, description="The call a tool message answers.")
    is_error: bool | None = Field(None, description="On a tool message: the call failed.")
    outline: str | None = Field(
        None,
        description="On a tool message: the call and its result in one line, sent instead of "
        "the result when older turns are shortened.",
    )
    details: MessageDetails | None = Field(
        None, description="On a tool message whose result was cut to fit: the whole text."
    )


class GetMessagesResult(Result):
    """`getMessages` result: the messages on the current branch, oldest first."""

    messages: list[ChatMessage]


__all__ = [
    "ChatMessage",
    "FullOutput",
    "GetMessagesResult",
    "MessageDetails",
    "MessageFunction",
    "MessageText",
    "MessageToolCall",
]
