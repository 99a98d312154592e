"""Claude Code's names for rho's tools and their arguments, both ways.

A hook written for Claude Code matches `Bash` or `Edit|Write` and reads `tool_input.command`
or `tool_input.file_path`; rho's tools are `run_command` and `edit_file`, with a `path`
relative to the project. A hook's input carries rho's arguments plus Claude Code's names for
them (`claude_input`), and a hook's rewritten input is read back in rho's (`rho_arguments`).
MCP tools (`mcp__server__tool`) are named alike in both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rho_hooks.config import MATCH_ALL

#: rho's tool name → Claude Code's.
CLAUDE_NAMES = {
    "run_command": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "search_files": "Grep",
    "find_files": "Glob",
    "list_dir": "LS",
}

_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class _Field:
    """A Claude Code key standing for a rho key (`-i` for `ignore_case`, `file_path` for
    `path`), with the conversion of a value both ways."""

    claude: str
    rho: str
    to_claude: Callable[[Any, Path], Any]
    to_rho: Callable[[Any, Path], Any]


def _absolute(value: Any, root: Path) -> Any:
    """A path as Claude Code gives it: absolute (relative ones are taken from `root`)."""
    if not isinstance(value, str) or os.path.isabs(value):
        return value
    return os.path.normpath(os.path.join(root, value))


def _relative(value: Any, root: Path) -> Any:
    """An absolute path inside `root` made relative to it; anything else as it is (a path
    outside the project stays absolute, for the sandbox to refuse)."""
    if not isinstance(value, str) or not os.path.isabs(value):
        return value
    path, base = os.path.normpath(value), os.path.normpath(root)
    try:
        inside = os.path.commonpath([path, base]) == base
    except ValueError:  # another drive
        inside = False
    if not inside:
        return value
    return os.path.relpath(path, base)


def _same(value: Any, root: Path) -> Any:
    return value


_FILE_PATH = _Field("file_path", "path", _absolute, _relative)
_PATH = _Field("path", "path", _absolute, _relative)
_IGNORE_CASE = _Field("-i", "ignore_case", _same, _same)

#: The keys each tool has under another name (or form) in Claude Code.
_FIELDS: dict[str, tuple[_Field, ...]] = {
    "read_file": (_FILE_PATH,),
    "write_file": (_FILE_PATH,),
    "edit_file": (_FILE_PATH,),
    "search_files": (_PATH, _IGNORE_CASE),
    "find_files": (_PATH,),
    "list_dir": (_PATH,),
}


def tool_names(tool_name: str) -> tuple[str, ...]:
    """The names a matcher is tried against: Claude Code's first, then rho's (only rho's
    when Claude Code has no name for the tool)."""
    claude = CLAUDE_NAMES.get(tool_name)
    return (claude, tool_name) if claude is not None else (tool_name,)


def matches(matcher: str, names: Sequence[str]) -> str | None:
    """The first of `names` that `matcher` matches, Claude Code's way, or None.

    `""` and `"*"` match every name (the first is returned); any other matcher is a Python
    regular expression that must match a whole name (`re.fullmatch`), so a plain name is an
    exact, case-sensitive match and `Edit|Write` matches either. A matcher that does not
    compile (the config refuses one) matches nothing.
    """
    if matcher in MATCH_ALL:
        return names[0] if names else None
    try:
        pattern = re.compile(matcher)
    except re.error:
        return None
    return next((name for name in names if pattern.fullmatch(name)), None)


def claude_input(tool_name: str, arguments: dict[str, Any], root: Path) -> dict[str, Any]:
    """A tool call's arguments as a hook sees them (`tool_input`): rho's, plus Claude Code's
    names where the tool has them.

    `file_path` is `path` made absolute (read_file, write_file, edit_file); the `path` of
    search_files, find_files and list_dir is made absolute (list_dir's is the root when
    absent); search_files' `ignore_case` is also `-i`; an edit_file call with exactly one
    exact-text edit also has its `old_string` and `new_string`. rho's own keys stay, so a
    hook written for rho reads them as they are.
    """
    result = dict(arguments)
    for field in _FIELDS.get(tool_name, ()):
        if field.rho in arguments:
            result[field.claude] = field.to_claude(arguments[field.rho], root)
    if tool_name == "list_dir" and "path" not in arguments:
        result["path"] = str(root)
    if tool_name == "edit_file":
        edit = _single_exact_edit(arguments.get("edits"))
        if edit is not None:
            result["old_string"], result["new_string"] = edit
    return result


def _single_exact_edit(edits: Any) -> tuple[str, str] | None:
    """The old and new text of `edits` when it is exactly one exact-text edit."""
    if not isinstance(edits, list) or len(edits) != 1 or not isinstance(edits[0], dict):
        return None
    old, new = edits[0].get("old_text"), edits[0].get("new_text")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    return old, new


def rho_arguments(
    tool_name: str, updated: dict[str, Any], original: dict[str, Any], root: Path
) -> dict[str, Any]:
    """A hook's rewritten input (`updatedInput`) as the arguments of rho's tool.

    Starts from `updated`; Claude Code's keys are read back as rho's (`file_path` → `path`,
    relative to the root when inside it, else left absolute for the sandbox to refuse;
    `old_string`/`new_string` → one exact-text edit; `-i` → `ignore_case`) and dropped. Where
    a value is in both forms, the Claude Code one wins when the hook changed it (it differs
    from what `claude_input` gave the hook); otherwise rho's stands, as the hook left it.
    """
    given = claude_input(tool_name, original, root)
    result = dict(updated)
    for field in _FIELDS.get(tool_name, ()):
        _read_back(field, result, updated, given, original, root)
    if tool_name == "list_dir" and "path" not in original and result.get("path") == str(root):
        del result["path"]  # the root stood for an absent path
    if tool_name == "edit_file":
        _read_back_edit(result, updated, given)
    return result


def _read_back(
    field: _Field,
    result: dict[str, Any],
    updated: dict[str, Any],
    given: dict[str, Any],
    original: dict[str, Any],
    root: Path,
) -> None:
    """Set `field`'s rho key in `result` from the hook's Claude Code value when the hook
    changed it; drop the Claude Code key."""
    value = updated.get(field.claude, _MISSING)
    changed = value is not _MISSING and value != given.get(field.claude, _MISSING)
    if field.claude != field.rho:
        result.pop(field.claude, None)
    if changed:
        result[field.rho] = field.to_rho(value, root)
        return
    # Unchanged: it stands for rho's value as given, unless the hook changed rho's own key.
    kept = value is not _MISSING and field.rho in original
    if kept and (field.claude == field.rho or field.rho not in updated):
        result[field.rho] = original[field.rho]


def _read_back_edit(result: dict[str, Any], updated: dict[str, Any], given: dict[str, Any]) -> None:
    """`old_string`/`new_string` read back as one exact-text edit when the hook changed
    either (or added them), and dropped."""
    old = updated.get("old_string", given.get("old_string"))
    new = updated.get("new_string", given.get("new_string"))
    result.pop("old_string", None)
    result.pop("new_string", None)
    changed = old != given.get("old_string") or new != given.get("new_string")
    if changed and isinstance(old, str) and isinstance(new, str):
        result["edits"] = [{"old_text": old, "new_text": new}]


__all__ = [
    "CLAUDE_NAMES",
    "claude_input",
    "matches",
    "rho_arguments",
    "tool_names",
]
