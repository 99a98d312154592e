"""Outlines and summaries: the short forms of messages the fitting planner sends instead of
the full ones.

A tool result's outline comes from the tool that made it (`Tool.outline(arguments, result)`,
recorded with the result); a tool without one, or a result recorded before outlines existed,
gets a generic one. Assistant messages keep their tool calls (the results still answer them)
with long arguments cut; user messages keep their beginning. Every short form starts with
`[outline]` or `[summary]`, so the model can tell that it is not the original text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rho_kernel.context.estimator import (
    CALL_OVERHEAD,
    MESSAGE_OVERHEAD,
    TOOL_MESSAGE_OVERHEAD,
    utf8_len,
)
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall

if TYPE_CHECKING:
    from rho_kernel.tools.base import Tool, ToolResult

OUTLINE = 1
"""Level of a message shown as its outline."""

SUMMARY = 2
"""Level of a message shown as its one-line summary."""

OUTLINE_PREFIX = "[outline] "
SUMMARY_PREFIX = "[summary] "
MAX_OUTLINE = 200
"""Characters an outline keeps at most."""
MAX_SUMMARY = 80
"""Characters a summary keeps at most."""

_TEXT_CHARS = {OUTLINE: MAX_OUTLINE, SUMMARY: MAX_SUMMARY}
_ASSISTANT_CHARS = {OUTLINE: 120, SUMMARY: 60}
#: Bytes the arguments of one tool call keep at most, and characters of each string in them.
ARGUMENT_BYTES = {OUTLINE: 160, SUMMARY: 48}
_STRING_CHARS = {OUTLINE: 40, SUMMARY: 12}
_MAX_KEYS = 8


def clip(text: str, limit: int) -> str:
    """`text` on one line (whitespace runs collapsed) and at most `limit` characters, ending
    with `…` when cut."""
    head = text[: limit * 4 + 8]
    line = " ".join(head.split())
    if len(line) <= limit and len(head) == len(text):
        return line
    if len(line) <= limit - 1:
        return line + "…"
    return line[: limit - 1] + "…"


def generic_outline(name: str, arguments: Any, output: str, is_error: bool) -> str:
    """The outline of a call whose tool gives none: `name(key=value, …) → ok|error: first
    line (n lines)`."""
    shown = ""
    if isinstance(arguments, dict):
        parts = []
        for key, value in list(arguments.items())[:4]:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            parts.append(f"{key}={clip(str(text), 40)}")
        shown = ", ".join(parts)
    lines = output.count("\n") + 1 if output else 0
    first = clip(output, 80) if output else "(no output)"
    state = "error" if is_error else "ok"
    return clip(
        f"{name}({shown}) → {state}: {first} ({lines} line{'' if lines == 1 else 's'})", MAX_OUTLINE
    )


def tool_outline(
    tool: Tool | None, name: str, arguments: dict[str, Any] | None, result: ToolResult
) -> str:
    """The outline recorded with a tool result: the tool's own (`Tool.outline`), or the
    generic one when it has none, returns nothing usable or fails. One line, ≤ 200 chars."""
    text: Any = None
    if tool is not None and arguments is not None:
        try:
            text = tool.outline(arguments, result)
        except Exception:  # an outline is a nicety: a broken one falls back to the generic
            text = None
    if not isinstance(text, str) or not text.strip():
        text = generic_outline(name, arguments, result.output, result.is_error)
    return clip(text, MAX_OUTLINE)


def _shrink_value(value: Any, chars: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[: max(1, chars - 1)] + "…"
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}"
    return "…"


def shrink_arguments(raw: str, level: int) -> str:
    """Tool-call arguments (a JSON string) cut for `level`: long strings shortened, lists and
    objects replaced by their size, keys dropped from the end until the JSON fits in
    `ARGUMENT_BYTES[level]` bytes. Always valid JSON."""
    cap = ARGUMENT_BYTES[level]
    if utf8_len(raw) <= cap:
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return "{}"
    if not isinstance(value, dict):
        return "{}"
    kept: dict[str, Any] = {}
    text = "{}"
    for key, item in list(value.items())[:_MAX_KEYS]:
        kept[key] = _shrink_value(item, _STRING_CHARS[level])
        candidate = json.dumps(kept, ensure_ascii=False)
        if utf8_len(candidate) > cap:
            del kept[key]
            break
        text = candidate
    return text


def short_text(message: ChatMessage, level: int, tool_outline_text: str | None = None) -> str:
    """The content a message has at `level` (`OUTLINE` or `SUMMARY`)."""
    prefix = OUTLINE_PREFIX if level == OUTLINE else SUMMARY_PREFIX
    if message.role == "tool":
        return prefix + clip(tool_outline_text or "", _TEXT_CHARS[level])
    text = message.text
    if message.role == "assistant":
        return prefix + clip(text, _ASSISTANT_CHARS[level]) if text.strip() else ""
    return prefix + clip(text, _TEXT_CHARS[level])


def short_size(message: ChatMessage, level: int, tool_outline_text: str | None = None) -> int:
    """An upper bound of `message_bytes(downgrade(message, level, …))`, computed without
    building the message or rewriting tool-call arguments."""
    size = utf8_len(short_text(message, level, tool_outline_text)) + MESSAGE_OVERHEAD
    if message.tool_call_id is not None:
        size += utf8_len(message.tool_call_id) + TOOL_MESSAGE_OVERHEAD
    for call in message.tool_calls or ():
        arguments = min(utf8_len(call.function.arguments), ARGUMENT_BYTES[level])
        size += utf8_len(call.id) + utf8_len(call.function.name) + arguments + CALL_OVERHEAD
    return size


def downgrade(
    message: ChatMessage, level: int, tool_outline_text: str | None = None
) -> ChatMessage:
    """`message` at `level`: a tool result keeps its `tool_call_id`, an assistant message its
    tool calls (arguments cut), anything else becomes a user message."""
    content = short_text(message, level, tool_outline_text)
    if message.role == "tool":
        return ChatMessage(
            role="tool",
            content=content,
            tool_call_id=message.tool_call_id,
            is_error=message.is_error,
        )
    if message.role == "assistant":
        calls = [
            ToolCall(
                id=call.id,
                function=FunctionCall(
                    name=call.function.name,
                    arguments=shrink_arguments(call.function.arguments, level),
                ),
            )
            for call in message.tool_calls or ()
        ]
        return ChatMessage(role="assistant", content=content, tool_calls=calls or None)
    return ChatMessage.user(content)


__all__ = [
    "ARGUMENT_BYTES",
    "MAX_OUTLINE",
    "MAX_SUMMARY",
    "OUTLINE",
    "OUTLINE_PREFIX",
    "SUMMARY",
    "SUMMARY_PREFIX",
    "clip",
    "downgrade",
    "generic_outline",
    "short_size",
    "short_text",
    "shrink_arguments",
    "tool_outline",
]
