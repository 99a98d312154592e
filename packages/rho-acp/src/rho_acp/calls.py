"""How a rho tool call looks in ACP: its `kind`, title and file locations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp.schema import ToolCallLocation, ToolKind

from rho_kernel import Risk, Tool

#: Argument names that hold a file or folder of the project.
PATH_ARGUMENTS = ("path", "paths", "file", "files")


def tool_kind(tool: Tool | None) -> ToolKind:
    """The ACP kind of a call of `tool` (None: a tool that does not exist)."""
    if tool is None:
        return "other"
    name = tool.name
    if tool.risk == Risk.READ and any(word in name for word in ("search", "find", "grep")):
        return "search"
    if tool.risk == Risk.READ:
        return "read"
    if tool.rule_subject == "path":
        return "edit"
    if tool.runs_processes or tool.rule_subject == "command":
        return "execute"
    if tool.risk == Risk.NETWORK:
        return "fetch"
    return "other"


def decoded(arguments: str) -> dict[str, Any]:
    """The model's arguments as an object ({} when they are not one)."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def locations(arguments: dict[str, Any], root: Path) -> list[ToolCallLocation]:
    """The files a call names, as absolute paths under `root` (at most 20)."""
    found: list[str] = []
    for key in PATH_ARGUMENTS:
        value = arguments.get(key)
        values = value if isinstance(value, list) else [value]
        found += [item for item in values if isinstance(item, str) and item]
    return [ToolCallLocation(path=str(root / path)) for path in found[:20]]


def title(name: str, arguments: dict[str, Any]) -> str:
    """A short title: the tool and its main argument."""
    for key in ("path", "command", "pattern", "query", "name"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            shown = value if len(value) <= 80 else value[:77] + "…"
            return f"{name}: {shown}"
    return name


__all__ = ["PATH_ARGUMENTS", "decoded", "locations", "title", "tool_kind"]
