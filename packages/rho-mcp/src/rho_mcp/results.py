"""A server's tool result as rho's `ToolResult`.

Text blocks are joined; an embedded text resource is shown under its URI, a resource link as
`[resource <uri>]`; an image, audio clip or binary resource becomes a placeholder naming its
type and size, the block itself kept in `details` (its data up to `MAX_KEPT_DATA`).
`structuredContent` is shown as JSON when there is no text. A result the server marks as an
error is an error result. The text is capped at `MAX_OUTPUT_BYTES`, its head and tail kept;
the loop then redacts it and frames it as tool output, as for every tool. A server's error
texts are bounded the same way (`error_text`: to `MAX_ERROR_BYTES` in a call's error, to
`MAX_SHORT_ERROR` where a short account goes), each saying how much was left out.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from rho_kernel import ToolResult

#: The most text of one result the model gets.
MAX_OUTPUT_BYTES = 64 * 1024
#: The most base64 data of one block kept in `details` (the session holds it).
MAX_KEPT_DATA = 1 << 20
#: The most of a server's error text a call's error keeps (under the loop's own bound of a
#: failure's text, so that only one note says what was left out).
MAX_ERROR_BYTES = 32 * 1024
#: The most of a server's error text kept where a short account goes: a server's state
#: (`listMcpServers`, getState) and the lines reported on stderr.
MAX_SHORT_ERROR = 1000


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _kept(block: Any) -> dict[str, Any]:
    raw: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    holder = raw.get("resource", raw)
    for key in ("data", "blob"):
        value = holder.get(key)
        if isinstance(value, str) and len(value) > MAX_KEPT_DATA:
            holder[key] = None
            holder["truncated"] = f"{len(value)} characters of base64 not kept"
    return raw


def block_text(block: Any, kept: list[dict[str, Any]]) -> str:
    """One content block as text; a block that is not text is added to `kept`."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        kept.append(_kept(block))
        return f"[{kind} {block.mime_type}, {_size(block.data)} bytes]"
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return f"[resource {resource.uri}]\n{text}"
        kept.append(_kept(block))
        mime = resource.mime_type or "application/octet-stream"
        return f"[resource {resource.uri}: {mime}, {_size(resource.blob)} bytes]"
    kept.append(
        block.model_dump(mode="json", by_alias=True) if hasattr(block, "model_dump") else {}
    )
    return f"[{kind or 'unknown'} content]"


def cap(text: str, limit: int = MAX_OUTPUT_BYTES, what: str = "result") -> str:
    """`text` at most about `limit` UTF-8 bytes: its head and tail around a note of how much
    of the server's `what` was left out."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    half = limit // 2
    head = data[:half].decode("utf-8", "ignore")
    tail = data[-half:].decode("utf-8", "ignore")
    omitted = len(data) - len(head.encode()) - len(tail.encode())
    return f"{head}\n[… {omitted} bytes of the server's {what} left out …]\n{tail}"


def error_text(text: str, limit: int = MAX_ERROR_BYTES) -> str:
    """A server's error text (an error's message, a failure's account) bounded as its
    results are: at most about `limit` bytes, saying how much was left out."""
    return cap(text, limit, "error")


def tool_result(result: Any, server: str, tool: str) -> ToolResult:
    """`result` (the SDK's `CallToolResult`) as a `ToolResult` for the model."""
    kept: list[dict[str, Any]] = []
    parts = [block_text(block, kept) for block in result.content]
    has_text = any(getattr(block, "type", None) == "text" for block in result.content)
    structured = result.structured_content
    if structured is not None and not has_text:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2, default=str))
    output = cap("\n".join(parts))
    details: dict[str, Any] = {"server": server, "tool": tool}
    if kept:
        details["content"] = kept
    if result.is_error:
        return ToolResult.error(output or f"{server}: the tool {tool!r} failed", details)
    return ToolResult(output, details=details)


__all__ = [
    "MAX_ERROR_BYTES",
    "MAX_KEPT_DATA",
    "MAX_OUTPUT_BYTES",
    "MAX_SHORT_ERROR",
    "block_text",
    "cap",
    "error_text",
    "tool_result",
]
