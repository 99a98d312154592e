"""A rho session as ACP sees it: its active branch replayed as updates, its listing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import (
    image_block,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_tool_call,
    update_user_message,
    update_user_message_text,
)
from acp.schema import SessionInfo

from rho_acp.calls import decoded, locations, title, tool_kind

if TYPE_CHECKING:
    from rho_kernel import ImagePart, Runtime

#: How much of a session file is read for its title.
TITLE_BYTES = 256 * 1024
#: The longest title.
MAX_TITLE = 80


def _user_image(image: ImagePart) -> Any:
    """A user message's image, as the chunk that shows it."""
    _, _, data = image.image_url.url.partition(";base64,")
    return update_user_message(image_block(data, image.media_type or "image/png"))


def replay(runtime: Runtime) -> Iterator[Any]:
    """The updates that show the session's active branch: user and agent messages, each
    tool call and its result (the system prompt is not shown)."""
    root = runtime.root.path
    for message in runtime.session.path_messages():
        if message.role == "user":
            yield update_user_message_text(message.text)
            for image in message.images:
                yield _user_image(image)
        elif message.role == "assistant":
            if message.text:
                yield update_agent_message_text(message.text)
            for call in message.tool_calls or ():
                args = decoded(call.function.arguments)
                yield start_tool_call(
                    call.id,
                    title(call.function.name, args),
                    kind=tool_kind(runtime.tools.get(call.function.name)),
                    status="pending",
                    locations=locations(args, root),
                    raw_input=args,
                )
        elif message.role == "tool" and message.tool_call_id:
            yield update_tool_call(
                message.tool_call_id,
                status="failed" if message.is_error else "completed",
                content=[tool_content(text_block(message.text))],
            )


def session_title(path: Path) -> str | None:
    """The session's first user message, cut to `MAX_TITLE` (None when none is found in
    its first `TITLE_BYTES`)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(TITLE_BYTES)
    except OSError:
        return None
    for line in head.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("payload", {}).get("Message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "user":
            text = " ".join(str(message.get("content", "")).split())
            return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1] + "…"
    return None


def listed(root: Path, home: Path | None, limit: int, offset: int) -> list[SessionInfo]:
    """The project's sessions, most recently used first, as ACP lists them."""
    from rho_kernel.session import list_sessions

    return [
        SessionInfo(
            session_id=info.id,
            cwd=info.cwd or str(root),
            title=session_title(info.path),
            updated_at=datetime.fromtimestamp(info.mtime_secs, UTC).isoformat(),
        )
        for info in list_sessions(root, home=home, limit=limit, offset=offset)
    ]


__all__ = ["MAX_TITLE", "TITLE_BYTES", "listed", "replay", "session_title"]
