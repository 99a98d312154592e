"""Chat messages as they are kept in sessions and sent to models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, PrivateAttr

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length", "content_filter"]
_FINISH_REASONS = frozenset(get_args(FinishReason))


def _is_finish_reason(value: object) -> bool:
    return type(value) is str and value in _FINISH_REASONS


class FunctionCall(BaseModel):
    """The function part of a model-issued tool call; `arguments` is a JSON string."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    name: str
    arguments: str = ""


class ToolCall(BaseModel):
    """One tool call requested by the model inside an assistant message."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall

    @property
    def name(self) -> str:
        """The called tool's name."""
        return self.function.name

    @property
    def arguments(self) -> str:
        """The raw JSON argument string, exactly as the model produced it."""
        return self.function.arguments


class TextPart(BaseModel):
    """A text content block (the list form of `content`)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["text"] = "text"
    text: str


class ImageUrl(BaseModel):
    """Where an image part's image is: a `data:` URL holding it."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    url: str


class ImagePart(BaseModel):
    """An image in a user message (the list form of `content`), in Chat Completions' shape:
    `{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}`. Make one from
    untrusted bytes with `rho_kernel.images.image_part`, which checks them."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    type: Literal["image_url"] = "image_url"
    image_url: ImageUrl

    @property
    def media_type(self) -> str | None:
        """The image's media type (`image/png`, …), from its `data:` URL."""
        head, sep, _ = self.image_url.url.partition(";base64,")
        return head.removeprefix("data:") if sep and head.startswith("data:") else None


class ChatMessage(BaseModel):
    """A message in the conversation (OpenAI Chat Completions shape).

    `finish_reason` is kept on assistant messages and `is_error` on tool messages; neither is
    sent to the model. Tool messages also keep `outline` (the call and its result in one line,
    made by the tool when the result was recorded; sent instead of the result when the
    conversation is shortened to fit the context window) and `details` (`{"FullOutput":
    {"original_size", "content"}}` when the result was cut to fit). Unknown fields are
    ignored so older and newer session files load.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    role: Role
    content: str | list[TextPart | ImagePart] = ""
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    finish_reason: FinishReason | None = None
    is_error: bool | None = None
    outline: str | None = None
    details: Any = None
    _wire: dict[str, Any] | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        # The private wire cache must not take part in equality.
        if not isinstance(other, ChatMessage):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    @property
    def text(self) -> str:
        """The message text, joining text blocks when content is a list."""
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content if isinstance(part, TextPart))

    @property
    def images(self) -> list[ImagePart]:
        """The message's images (a user message's; none for text content)."""
        if isinstance(self.content, str):
            return []
        return [part for part in self.content if isinstance(part, ImagePart)]

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        return cls._plain("system", text)

    @classmethod
    def user(cls, text: str, images: Sequence[ImagePart] = ()) -> ChatMessage:
        """A user message: `text`, followed by `images` when there are any."""
        if images:
            return cls(role="user", content=[TextPart(text=text), *images])
        return cls._plain("user", text)

    @classmethod
    def _plain(cls, role: Role, text: str) -> ChatMessage:
        """A message of `role` with text content: made without validation when `text` is a
        string (what validation would give; no validator is built at startup for it)."""
        if type(text) is str:
            return cls.model_construct(role=role, content=text)
        return cls(role=role, content=text)

    @classmethod
    def assistant(
        cls,
        text: str,
        tool_calls: list[ToolCall] | None = None,
        finish_reason: FinishReason | None = None,
    ) -> ChatMessage:
        calls = tool_calls or None
        plain = (
            type(text) is str
            and (calls is None or (type(calls) is list and all(type(c) is ToolCall for c in calls)))
            and (finish_reason is None or _is_finish_reason(finish_reason))
        )
        # Values of exactly the declared types are what validation would keep as they are.
        make = cls.model_construct if plain else cls
        return make(role="assistant", content=text, tool_calls=calls, finish_reason=finish_reason)

    @classmethod
    def tool_result(cls, tool_call_id: str, output: str, is_error: bool) -> ChatMessage:
        plain = type(tool_call_id) is str and type(output) is str and type(is_error) is bool
        make = cls.model_construct if plain else cls
        return make(role="tool", content=output, tool_call_id=tool_call_id, is_error=is_error)

    def to_record(self) -> dict[str, Any]:
        """The JSON form persisted in sessions and returned by `getMessages`."""
        if isinstance(self.content, str) and self.tool_calls is None and self.details is None:
            record = self._scalar_record()  # what model_dump gives, without a serializer
        else:
            record = self.model_dump(exclude_none=True)
        if self.role == "tool":
            record["is_error"] = bool(self.is_error)
        return record

    def _scalar_record(self) -> dict[str, Any]:
        """`model_dump(exclude_none=True)` of a message whose fields all hold plain values."""
        record: dict[str, Any] = {"role": self.role, "content": self.content}
        for name in ("tool_call_id", "finish_reason", "is_error", "outline"):
            value = getattr(self, name)
            if value is not None:
                record[name] = value
        return record

    def to_wire(self) -> dict[str, Any]:
        """The Chat Completions form sent to a model (no rho-only fields); computed once."""
        if self._wire is not None:
            return self._wire
        content: Any = self.text
        if not isinstance(self.content, str) and self.images:  # else: the text alone
            content = [part.model_dump() for part in self.content]
        wire: dict[str, Any] = {"role": self.role, "content": content}
        if self.tool_calls:
            wire["tool_calls"] = [call.model_dump() for call in self.tool_calls]
        if self.tool_call_id is not None:
            wire["tool_call_id"] = self.tool_call_id
        self._wire = wire
        return wire


__all__ = [
    "ChatMessage",
    "FinishReason",
    "FunctionCall",
    "ImagePart",
    "ImageUrl",
    "Role",
    "TextPart",
    "ToolCall",
]
