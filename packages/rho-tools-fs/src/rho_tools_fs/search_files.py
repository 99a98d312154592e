"""The `search_files` tool: a regex search over the project's text files.

ripgrep does the work when it is available (`rho_tools_fs.ripgrep`); otherwise a walk in
Python (`rho_tools_fs.tree_walk`) with Python's `re` gives the same lines for the same tree.
Hidden files, binary files (a NUL byte anywhere), files over 10 MiB and everything the
ignore rules exclude are skipped; symlinks are not followed. Matches come sorted by path.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rho_kernel import escape_controls
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.globs import GlobError, compile_glob
from rho_tools_fs.ignore import IgnoreRules
from rho_tools_fs.key_lines import (
    KeyLines,
    Match,
    read_searchable,
    visible_matches,
    without_key_lines,
)
from rho_tools_fs.outlines import listing_outline
from rho_tools_fs.ripgrep import (
    BASE_ARGS,
    MAX_FILESIZE_BYTES,
    RipgrepRun,
    error_text,
    find_rg,
    ignore_file,
    path_order,
    rg_would_block,
)
from rho_tools_fs.scope import Scope, ScopeError, resolve_scope
from rho_tools_fs.tree_walk import TreeWalk, display_path, run_stoppable
from rho_tools_fs.verified import open_candidates

#: Default and highest `max_results`.
DEFAULT_MAX_RESULTS = 100
MAX_RESULTS_CEILING = 500
#: Longer matched lines are cut to this many characters and marked with `…`.
MAX_LINE_CHARS = 240

#: Files whose lines one ripgrep run reads (phase two).
_BATCH = 32
_SIMPLE_GLOB = re.compile(r"[A-Za-z0-9._*?-]+")
_TRUNCATED = (
    "… more matches truncated (showing first {n}; raise max_results up to "
    f"{MAX_RESULTS_CEILING} or narrow the pattern/path)"
)

PathFilter = Callable[[str], bool]


@dataclass(slots=True)
class Found:
    """The matched lines and whether more were left out."""

    lines: list[Match] = field(default_factory=list)
    truncated: bool = False


def _shown_line(text: str) -> str:
    text = text.rstrip()
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"


def format_match(path: str, line_number: int, text: str) -> str:
    """`{path}:{line}: {text}`, the path's control characters escaped, the text without
    trailing whitespace and cut at 240 chars."""
    return f"{escape_controls(path)}:{line_number}: {_shown_line(text)}"


class _PatternError(Exception):
    """The pattern was refused (the message says why)."""


# ── ripgrep ─────────────────────────────────────────────────────────────────


def _field_bytes(value: Any) -> bytes:
    """A ripgrep JSON text field as the bytes it stands for."""
    if not isinstance(value, dict):
        return b""
    if isinstance(value.get("text"), str):
        return str(value["text"]).encode("utf-8", errors="surrogateescape")
    try:
        return base64.b64decode(value.get("bytes") or "")
    except ValueError:
        return b""


def _field_text(value: Any) -> str:
    """A ripgrep JSON text field: `{"text": …}` or base64 `{"bytes": …}` (invalid UTF-8)."""
    if not isinstance(value, dict):
        return ""
    if isinstance(value.get("text"), str):
        return str(value["text"])
    try:
        return base64.b64decode(value.get("bytes") or "").decode("utf-8", errors="replace")
    except ValueError:
        return ""


def _rg_query_args(
    pattern: str, glob: str | None, ignore_case: bool, fixed_strings: bool
) -> list[str]:
    args = [*BASE_ARGS]
    if ignore_case:
        args.append("--ignore-case")
    if fixed_strings:
        args.append("--fixed-strings")
    if glob and _SIMPLE_GLOB.fullmatch(glob):  # prunes early; the glob filter decides
        args += ["--type-add", f"rhoglob:{glob}", "--type", "rhoglob"]
    return [*args, "--regexp", pattern, "--"]


async def _matching_files(
    rg: str, root: SandboxRoot, rules: IgnoreRules, scope: Scope, query: dict[str, Any]
) -> list[str]:
    """Phase one: every file with a match (ripgrep `-l`, all threads), in path order."""
    files: list[str] = []
    seen_output = False
    wanted: PathFilter = query["path_filter"]
    args = ["--files-with-matches", "--null"]
    args += _rg_query_args(
        query["pattern"], query["glob"], query["ignore_case"], query["fixed_strings"]
    )
    with ignore_file(rules.outside_rules(scope.path)) as extra:
        async with RipgrepRun(
            rg, [*extra, *args, scope.argument], root.path, separator=b"\0"
        ) as run:
            async for record in run.records():
                seen_output = True
                path = os.fsdecode(record).removeprefix("./")
                if wanted(display_path(path)):
                    files.append(path)
            status, stderr = await run.finish()
    if status == 2 and not seen_output and "regex" in stderr.lower():
        raise _PatternError(error_text(stderr))
    files.sort(key=path_order)
    return files


async def _matching_lines(
    rg: str, root: SandboxRoot, files: list[str], query: dict[str, Any]
) -> list[Match]:
    """Phase two: the matched lines of `files` (explicit paths, searched in order).

    Each file is opened through the sandbox first and ripgrep reads that open file
    (`rho_tools_fs.verified`), so the lines shown are the project's whatever ripgrep's walk
    met. `--no-mmap` makes ripgrep report a NUL byte anywhere in an explicitly named file, as
    the walk in phase one does; such binary files are dropped.
    """
    by_file: dict[str, list[Match]] = {}
    pending: list[Match] = []
    args = ["--json", "--no-mmap", "--threads", "1"]
    args += _rg_query_args(query["pattern"], None, query["ignore_case"], query["fixed_strings"])
    opened = await asyncio.to_thread(open_candidates, root, files, MAX_FILESIZE_BYTES)
    try:
        if not opened.arguments:
            return []
        names = opened.arguments
        async with RipgrepRun(rg, [*args, *names], root.path, pass_fds=opened.fds) as run:
            async for record in run.records():
                message = json.loads(record)
                kind, data = message.get("type"), message.get("data") or {}
                path = names.get(os.fsdecode(_field_bytes(data.get("path"))), "")
                if kind == "begin":
                    pending = []
                elif kind == "match" and path:
                    text = _field_text(data.get("lines"))
                    pending.append(Match(path, data.get("line_number") or 0, text))
                elif kind == "end" and path and data.get("binary_offset") is None:
                    by_file[path] = pending
            status, stderr = await run.finish()
    finally:
        opened.close()
    if status == 2 and not by_file and "regex" in stderr.lower():
        raise _PatternError(error_text(stderr))
    return [line for path in files for line in by_file.get(path, ())]


async def _search_rg(
    rg: str, root: SandboxRoot, rules: IgnoreRules, scope: Scope, cap: int, **query: Any
) -> Found:
    """Find the matching files with every thread, then read lines from the first of them."""
    found = Found()
    if scope.is_dir:
        files = await _matching_files(rg, root, rules, scope, query)
    else:  # one file: ripgrep never opens it by path
        files = [scope.path] if query["path_filter"](display_path(scope.path)) else []
    for start in range(0, len(files), _BATCH):
        batch = await _matching_lines(rg, root, files[start : start + _BATCH], query)
        # Key lines go before the cap, so how many are left out shows nowhere.
        found.lines += await asyncio.to_thread(visible_matches, root, query["key_lines"], batch)
        if len(found.lines) > cap:
            del found.lines[cap:]
            found.truncated = True
            break
    return found


# ── fallback ────────────────────────────────────────────────────────────────


def _file_lines(root: SandboxRoot, path: str) -> list[bytes] | None:
    """The lines of a searchable file, or None (binary, too large, unreadable)."""
    data = read_searchable(root, path)
    if data is None or b"\0" in data:
        return None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _search_python(
    root: SandboxRoot,
    rules: IgnoreRules,
    scope: Scope,
    cap: int,
    regex: re.Pattern[str],
    path_filter: PathFilter,
    key_lines: KeyLines,
    stop: threading.Event,
) -> Found:
    """The same search as `_search_rg`, walking the tree in Python."""
    found = Found()
    if scope.is_dir:
        walk = TreeWalk(root, rules, hidden=False, stop=stop)
        paths: Iterator[str] = (
            entry.path for entry in walk.entries(scope.path) if entry.kind == "file"
        )
    else:
        paths = iter([scope.path])
    for path in paths:
        shown = display_path(path)
        if not path_filter(shown):
            continue
        lines = _file_lines(root, path) or []
        matches = []
        for number, raw in enumerate(lines, 1):
            text = raw.decode("utf-8", errors="replace")
            if regex.search(text):
                matches.append(Match(path, number, text))
        if matches:
            found.lines += without_key_lines(key_lines, b"\n".join(lines), matches)
        if len(found.lines) > cap:
            del found.lines[cap:]
            found.truncated = True
            return found
    return found


async def _run_python(
    root: SandboxRoot, rules: IgnoreRules, scope: Scope, cap: int, **query: Any
) -> Found:
    flags = re.IGNORECASE if query["ignore_case"] else 0
    pattern = re.escape(query["pattern"]) if query["fixed_strings"] else query["pattern"]
    try:
        regex = re.compile(pattern, flags)
    except re.error as exc:
        raise _PatternError(str(exc)) from None
    except (RecursionError, OverflowError, ValueError) as exc:
        raise _PatternError(str(exc) or type(exc).__name__) from None
    return await run_stoppable(
        _search_python, root, rules, scope, cap, regex, query["path_filter"], query["key_lines"]
    )


# ── the tool ────────────────────────────────────────────────────────────────


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return listing_outline(
        "search_files",
        arguments,
        result,
        noun="matches",
        none="No matches for",
        cut="… more matches truncated",
    )


async def _search(ctx: ToolContext, scope: Scope, cap: int, **query: Any) -> Found:
    rules = await asyncio.to_thread(IgnoreRules, ctx.root)
    if scope.is_dir:
        await asyncio.to_thread(rules.load_ancestors, scope.path)
    rg = find_rg()
    if rg is None or await rg_would_block(ctx.root.path, scope.path, scope.is_dir):
        return await _run_python(ctx.root, rules, scope, cap, **query)
    return await _search_rg(rg, ctx.root, rules, scope, cap, **query)


def _check_text(name: str, value: str) -> str | None:
    if "\0" in value:
        return f"search_files: {name} contains a NUL byte"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return f"search_files: {name} is not valid Unicode"
    return None


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def search_files(
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    ignore_case: bool = False,
    max_results: int = DEFAULT_MAX_RESULTS,
    fixed_strings: bool = False,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Search file contents for a regular expression: `path:line: text` lines sorted by path,
    the text cut at 240 characters. Skips hidden, ignored, binary and over-10-MiB files.
    Rust regex syntax (no look-around or backreferences): escape `(`, `[`, `.`, `*` to match
    them, or set fixed_strings.

    Args:
        pattern: The regular expression, or plain text with fixed_strings.
        path: File or directory to search.
        glob: Only files whose name matches, e.g. `*.rs`, `*.{ts,tsx}`; a glob with `/` matches the path from the project root, e.g. `src/**/*.py`.
        ignore_case: Match case-insensitively.
        max_results: How many matching lines to return at most (up to 500).
        fixed_strings: Match the pattern as plain text, e.g. `greet(`.
    """
    for name, value in (("pattern", pattern), ("glob", glob or ""), ("path", path)):
        problem = _check_text(name, value)
        if problem:
            return ToolResult.error(problem)
    cap = min(max(max_results, 1), MAX_RESULTS_CEILING)
    try:
        path_filter: PathFilter = compile_glob(glob) if glob else (lambda _path: True)
    except GlobError as exc:
        return ToolResult.error(f"search_files: invalid glob '{glob}': {exc}")
    try:
        scope = await asyncio.to_thread(resolve_scope, ctx.root, "search_files", path)
        found = await _search(
            ctx, scope, cap, pattern=pattern, glob=glob, ignore_case=ignore_case,
            fixed_strings=fixed_strings, path_filter=path_filter, key_lines=ctx.key_block_lines,
        )  # fmt: skip
    except ScopeError as exc:
        return ToolResult.error(str(exc))
    except _PatternError as exc:
        from rho_tools_fs.regex_hints import regex_hint  # only a bad pattern needs it

        return ToolResult.error(
            f"search_files: invalid regex pattern '{pattern}': {exc}\n"
            f"Hint: {regex_hint(pattern, str(exc))}"
        )
    if not found.lines:
        return ToolResult(f"No matches for '{pattern}'")
    shown = [format_match(display_path(m.path), m.number, m.text) for m in found.lines]
    if found.truncated:
        shown.append(_TRUNCATED.format(n=cap))
    return ToolResult("\n".join(shown))


__all__ = [
    "DEFAULT_MAX_RESULTS",
    "MAX_LINE_CHARS",
    "MAX_RESULTS_CEILING",
    "Match",
    "format_match",
    "search_files",
]
