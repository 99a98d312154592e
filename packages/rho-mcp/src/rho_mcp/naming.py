"""The names MCP tools get in rho: `mcp__<server>__<tool>`.

Model APIs take 1 to 64 letters, digits, `_` and `-`: anything else becomes `_`, and a
longer name is cut and given a hash of the whole one. Two tools whose names come out the
same both stay: the later one gets a hash of its server and tool name.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_NAME = 64
_OTHER = re.compile(r"[^A-Za-z0-9_-]")


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:8]


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, made a valid tool name (see the module docstring)."""
    name = _OTHER.sub("_", f"{PREFIX}{server}__{tool}")
    if len(name) <= MAX_NAME:
        return name
    return f"{name[: MAX_NAME - 9]}_{_digest(server, tool)}"


def unique_name(server: str, tool: str, taken: set[str]) -> str:
    """`tool_name(server, tool)`, or, when a tool already has that name, one with a hash of
    the server and tool names in place of its end."""
    name = tool_name(server, tool)
    if name not in taken:
        return name
    return f"{name[: MAX_NAME - 9]}_{_digest('dup', server, tool)}"


__all__ = ["MAX_NAME", "PREFIX", "tool_name", "unique_name"]
