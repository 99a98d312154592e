"""How a rho tool call looks in ACP: its `kind`, title, file locations and an edit's diff."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import ToolCallLocation, ToolKind

from rho_kernel import PathNotFoundError, Risk, SandboxError, SandboxRoot, Tool

if TYPE_CHECKING:
    from rho_kernel.security import Redactor

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


#: The largest file an edit's diff shows.
MAX_DIFF_FILE = 1 << 20


@dataclass(frozen=True, slots=True)
class FileText:
    """A project file's text (`path` relative to the root), or "" when it did not exist."""

    path: str
    text: str


def edited_file(root: SandboxRoot, arguments: dict[str, Any]) -> FileText | None:
    """The text of the file an edit's `path` names, read through the sandbox: "" for a file
    that does not exist yet; None when there is no such argument, or the file is not text
    the sandbox lets rho read, or it is over `MAX_DIFF_FILE` (no diff is shown then)."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path:
        return None
    try:
        with root.open_read(path) as handle:
            data = handle.read(MAX_DIFF_FILE + 1)
    except (FileNotFoundError, PathNotFoundError):
        return FileText(path, "")
    except (OSError, ValueError, SandboxError):
        return None
    if len(data) > MAX_DIFF_FILE:
        return None
    try:
        return FileText(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def diff_texts(redactor: Redactor, before: FileText, after: FileText) -> tuple[str, str]:
    """The `oldText` and `newText` of an edit's diff block: the whole file before and after,
    redacted line for line with both versions' context (`Redactor.redact_pair`), so that a
    block shows no secret that the call's text content hides."""
    return redactor.redact_pair(before.text, after.text)


def title(name: str, arguments: dict[str, Any]) -> str:
    """A short title: the tool and its main argument."""
    for key in ("path", "command", "pattern", "query", "name"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            shown = value if len(value) <= 80 else value[:77] + "…"
            return f"{name}: {shown}"
    return name


__all__ = [
    "MAX_DIFF_FILE",
    "PATH_ARGUMENTS",
    "FileText",
    "decoded",
    "diff_texts",
    "edited_file",
    "locations",
    "title",
    "tool_kind",
]
