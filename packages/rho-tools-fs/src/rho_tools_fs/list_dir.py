"""The `list_dir` tool: a directory's entries, one a line, honouring the ignore rules.

Hidden entries are shown (dotfiles such as `.env.example` matter to a project); `.git` is
shown in a one-level listing but never entered. Symlinks are listed, never followed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rho_kernel import escape_controls
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.ignore import IgnoreRules
from rho_tools_fs.scope import ScopeError, resolve_scope
from rho_tools_fs.tree_walk import TreeWalk, display_path

#: A listing stops after this many entries.
MAX_ENTRIES = 1000

EMPTY = "(empty directory)"


def _list(root: SandboxRoot, path: str, recursive: bool) -> ToolResult:
    try:
        scope = resolve_scope(root, "list_dir", path)
    except ScopeError as exc:
        return ToolResult.error(str(exc))
    if not scope.is_dir:
        return ToolResult.error(f"list_dir: `{escape_controls(path)}` is not a directory")
    walk = TreeWalk(
        root,
        IgnoreRules(root),
        hidden=True,
        include_git=not recursive,
        max_depth=None if recursive else 1,
    )
    lines: list[str] = []
    cut = len(scope.path) + 1 if scope.path else 0
    stopped = False
    for entry in walk.entries(scope.path):
        if len(lines) == MAX_ENTRIES:
            stopped = True
            break
        shown = escape_controls(display_path(entry.path[cut:]))
        lines.append(shown + "/" if entry.kind == "dir" else shown)
    output = "\n".join(lines)
    if stopped:
        output += (
            f"\n\n(listing stopped after {MAX_ENTRIES} entries; list a subdirectory, or use "
            "find_files)"
        )
    if walk.errors:
        output += f"\n\n({walk.errors} entries could not be read)"
    return ToolResult(output if lines else EMPTY + output)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    path = escape_controls(str(arguments.get("path") or ".")[:150])
    if result.is_error:
        return f"list_dir {path}: error"
    body = result.output.split("\n\n", 1)[0]
    count = 0 if body.startswith(EMPTY) else len(body.split("\n"))
    return f"list_dir {path}: {count} entries"


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def list_dir(path: str = ".", recursive: bool = False, *, ctx: ToolContext) -> ToolResult:
    """List a directory: one entry a line, relative to it, sorted by name; directories end
    with `/`. Hidden entries are shown, ignored ones (.gitignore, .ignore, git excludes) are
    not. A recursive listing goes depth first, never into .git, and stops after 1000 entries.

    Args:
        path: The directory.
        recursive: Also list everything below.
    """
    return await asyncio.to_thread(_list, ctx.root, path, recursive)


__all__ = ["EMPTY", "MAX_ENTRIES", "list_dir"]
