"""Listing a server's tools when some of them are malformed.

The SDK validates a `tools/list` answer as a whole: one tool with a schema it refuses (a
root that is not an object, say) would make the whole server unusable. rho then asks again
for the raw answer, keeps each tool that is valid on its own (as the SDK checks a listing of
the negotiated protocol version), and reports the others; the valid listing is handed to the
SDK's session as its own listing would be, so that it still checks each call's structured
result against the tool's output schema.

This reaches into the session's dispatcher (the SDK has no public raw request): with an SDK
that lacks it, the strict listing's error stands and the server fails to start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types
from mcp_types import methods
from pydantic import ValidationError


async def lenient_tools(client: Any, skip: Callable[[str, str], None], max_pages: int) -> list[Any]:
    """Every valid tool `client`'s server lists; `skip(name, why)` for each invalid one.
    Raises AttributeError when the SDK offers no way to read the raw listing."""
    session = client.session
    version = client.protocol_version
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(max_pages):
        params = {"cursor": cursor} if cursor else None
        options: dict[str, Any] = {}
        session._stamp({"method": "tools/list", "params": params}, options)
        raw = await session._dispatcher.send_raw_request("tools/list", params, options)
        listed = raw.get("tools") if isinstance(raw, dict) else None
        for entry in listed if isinstance(listed, list) else []:
            try:
                methods.validate_server_result("tools/list", version, {"tools": [entry]})
                tools.append(mcp_types.Tool.model_validate(entry, by_name=False))
            except ValidationError as exc:
                name = entry.get("name") if isinstance(entry, dict) else None
                first = exc.errors()[0]
                where = ".".join(str(part) for part in first.get("loc", ())[2:])
                skip(str(name)[:100], f"the MCP SDK refuses it ({where}: {first.get('msg')})")
        cursor = raw.get("nextCursor") if isinstance(raw, dict) else None
        if not isinstance(cursor, str):
            break
    session._absorb_tool_listing(mcp_types.ListToolsResult(tools=tools), complete=True)
    return tools


__all__ = ["lenient_tools"]
