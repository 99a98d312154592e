"""The `find_files` tool: files whose name matches a glob, sorted by path.

ripgrep lists the files (`rg --files`) when it is available, otherwise a walk in Python does;
the glob is applied by `rho_tools_fs.globs` either way, so both give the same list. Hidden
files and everything the ignore rules exclude are skipped; symlinks are not followed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from rho_kernel import escape_controls
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.globs import GlobError, compile_glob
from rho_tools_fs.ignore import IgnoreRules
from rho_tools_fs.outlines import listing_outline
from rho_tools_fs.ripgrep import (
    BASE_ARGS,
    SORT_ARGS,
    RipgrepRun,
    error_text,
    find_rg,
    ignore_file,
    rg_would_block,
)
from rho_tools_fs.scope import Scope, ScopeError, resolve_scope
from rho_tools_fs.search_files import PathFilter
from rho_tools_fs.tree_walk import TreeWalk, display_path, run_stoppable
from rho_tools_fs.verified import EntryCheck

#: Default and highest `max_results`.
DEFAULT_MAX_RESULTS = 200
MAX_RESULTS_CEILING = 1000

_TRUNCATED = (
    "… more results truncated (showing first {n}; raise max_results up to "
    f"{MAX_RESULTS_CEILING} or narrow the pattern/path)"
)


class _ListingError(Exception):
    """ripgrep could not list the files (the message says why)."""


async def _find_rg(
    rg: str, root: SandboxRoot, rules: IgnoreRules, scope: Scope, cap: int, wanted: PathFilter
) -> list[str]:
    """ripgrep's listing, each path confirmed through the sandbox (`verified.EntryCheck`)."""
    paths: list[str] = []
    seen_output = False
    args = ["--files", "--null", *BASE_ARGS, *SORT_ARGS, "--", scope.argument]
    check = EntryCheck(root)
    with ignore_file(rules.outside_rules(scope.path)) as extra:
        async with RipgrepRun(rg, extra + args, root.path, separator=b"\0") as run:
            async for record in run.records():
                seen_output = True
                path = os.fsdecode(record)
                shown = display_path(path).removeprefix("./")
                if wanted(shown) and check.is_file(path):  # a few syscalls: inline
                    paths.append(shown)
                    if len(paths) > cap:
                        break
            else:
                status, stderr = await run.finish()
                if status == 2 and not seen_output:
                    raise _ListingError(error_text(stderr))
    return paths


def _find_python(
    root: SandboxRoot,
    rules: IgnoreRules,
    scope: Scope,
    cap: int,
    wanted: PathFilter,
    stop: threading.Event,
) -> list[str]:
    if not scope.is_dir:
        return [shown] if wanted(shown := display_path(scope.path)) else []
    paths: list[str] = []
    for entry in TreeWalk(root, rules, hidden=False, stop=stop).entries(scope.path):
        if entry.kind == "file" and wanted(shown := display_path(entry.path)):
            paths.append(shown)
            if len(paths) > cap:
                break
    return paths


async def _find(ctx: ToolContext, scope: Scope, cap: int, wanted: PathFilter) -> list[str]:
    rules = await asyncio.to_thread(IgnoreRules, ctx.root)
    if scope.is_dir:
        await asyncio.to_thread(rules.load_ancestors, scope.path)
    rg = find_rg()
    if rg is not None and not await rg_would_block(ctx.root.path, scope.path, scope.is_dir):
        return await _find_rg(rg, ctx.root, rules, scope, cap, wanted)
    return await run_stoppable(_find_python, ctx.root, rules, scope, cap, wanted)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return listing_outline(
        "find_files",
        arguments,
        result,
        noun="files",
        none="No files matching",
        cut="… more results truncated",
    )


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def find_files(
    pattern: str,
    path: str = ".",
    max_results: int = DEFAULT_MAX_RESULTS,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Find files by name: their paths, one a line, sorted; no directories (see list_dir).
    Skips hidden and ignored files.

    Args:
        pattern: Glob matched against the file name, e.g. `*.rs`, `*test*`, `*.{js,ts}`; a glob with `/` matches the path from the project root, e.g. `src/**/mod.rs`.
        path: Directory to search.
        max_results: How many paths to return at most (up to 1000).
    """
    if "\0" in path:
        return ToolResult.error("find_files: path contains a NUL byte")
    cap = min(max(max_results, 1), MAX_RESULTS_CEILING)
    try:
        wanted = compile_glob(pattern)
    except GlobError as exc:
        return ToolResult.error(f"find_files: invalid glob '{pattern}': {exc}")
    try:
        scope = await asyncio.to_thread(resolve_scope, ctx.root, "find_files", path)
        paths = await _find(ctx, scope, cap, wanted)
    except ScopeError as exc:
        return ToolResult.error(str(exc))
    except _ListingError as exc:
        return ToolResult.error(f"find_files: {exc}")
    if not paths:
        return ToolResult(f"No files matching '{pattern}'")
    paths = [escape_controls(path) for path in paths]  # one line each, whatever the name
    if len(paths) > cap:
        return ToolResult("\n".join(paths[:cap]) + "\n" + _TRUNCATED.format(n=cap))
    return ToolResult("\n".join(paths))


__all__ = ["DEFAULT_MAX_RESULTS", "MAX_RESULTS_CEILING", "find_files"]
