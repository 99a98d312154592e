"""The `read_file` tool: a text file inside the sandbox, framed and (by default) hashlined.

The file is opened through the sandbox root (`SandboxRoot.open_read`), which never follows a
symlink out of the project, and everything after that (size, content) comes from the open fd.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from rho_kernel import escape_controls, escape_tags
from rho_kernel.security import (
    FileTypeError,
    KeyBlockLines,
    PathNotFoundError,
    SandboxError,
    SandboxRoot,
)
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.hashline import format_hashlines, hashline_rows, hide_rows

#: Files larger than this are refused (10 MiB).
MAX_READ_BYTES = 10 * 1024 * 1024
#: A NUL byte within this many leading bytes marks a file as binary.
BINARY_SNIFF_BYTES = 8192

OPEN_TAG = "<context>"
CLOSE_TAG = "<context:end>"

#: The tag names of the frame: file content cannot open or close it.
FRAME_TAGS = ("context",)


def escape_framing(text: str) -> str:
    """`text` with one backslash inserted after the `<` of every tag-like `<context…` or
    `</context…` (see `rho_kernel.framing.escape_tags`).

    `<context:end>` becomes `<\\context:end>` and `<context>` becomes `<\\context>`, so file
    content can never close (or open) the frame. Text that already looks escaped gets one more
    backslash, which keeps the escaping reversible (`unescape_tags(text, FRAME_TAGS)` undoes it).
    """
    return escape_tags(text, FRAME_TAGS)


def frame(body: str) -> str:
    """`<context>\\n{body}\\n<context:end>`, the body escaped with `escape_framing`."""
    return f"{OPEN_TAG}\n{escape_framing(body)}\n{CLOSE_TAG}"


def _drop_final_newline(text: str) -> str:
    """Raw text without its last line ending (the frame supplies the newline before the tag)."""
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


#: `key_lines(whole_text)`: the lines to hide wherever they are shown (`ToolContext.key_block_lines`).
KeyLines = Callable[[str], KeyBlockLines]


@dataclass(frozen=True, slots=True)
class _View:
    """Which lines to show and how: anchored or raw, from line `offset`, at most `limit`."""

    hashline: bool
    offset: int = 1
    limit: int | None = None

    @property
    def whole(self) -> bool:
        return self.offset == 1 and self.limit is None


def _sandbox_hint(root: SandboxRoot) -> str:
    return (
        f"Paths are relative to the project root ({root.path}); absolute paths must lie inside it."
    )


def _read(root: SandboxRoot, path: str, view: _View, key_lines: KeyLines) -> ToolResult:
    """Open `path` through the sandbox root and render it (blocking; runs in a worker thread)."""
    try:
        handle = root.open_read(path)
    except PathNotFoundError:
        return ToolResult.error(
            f"read_file: '{escape_controls(path)}' not found. {_sandbox_hint(root)}"
        )
    except FileTypeError as exc:
        if exc.kind == "directory":
            return ToolResult.error(
                f"read_file: '{escape_controls(path)}' is a directory, not a file; list it with list_dir"
            )
        return ToolResult.error(
            f"read_file: '{escape_controls(path)}' is not a regular file (it is a {exc.kind})"
        )
    except SandboxError as exc:
        return ToolResult.error(f"read_file: {exc}. {_sandbox_hint(root)}")
    except OSError as exc:
        return ToolResult.error(
            f"read_file: failed to read '{escape_controls(path)}': {exc.strerror or exc}"
        )
    with handle:
        return _render(handle, path, view, key_lines)


def _render(handle: BinaryIO, shown: str, view: _View, key_lines: KeyLines) -> ToolResult:
    """Read the open file (its size from the fd, not the path) and frame it."""
    try:
        size = os.fstat(handle.fileno()).st_size
        head = handle.read(BINARY_SNIFF_BYTES)
        if b"\0" in head:
            return ToolResult.error(
                f"read_file: '{escape_controls(shown)}' is a binary file ({size} bytes)"
            )
        data = head
        if size <= MAX_READ_BYTES:
            data += handle.read(MAX_READ_BYTES + 1 - len(head))
    except OSError as exc:
        return ToolResult.error(
            f"read_file: failed to read '{escape_controls(shown)}': {exc.strerror or exc}"
        )
    size = max(size, len(data))
    if size > MAX_READ_BYTES:
        return ToolResult.error(
            f"read_file: '{escape_controls(shown)}' is too large ({size} bytes; the limit is "
            f"{MAX_READ_BYTES} bytes = 10 MiB). Search it or read a slice of it instead."
        )
    text = data.decode("utf-8", errors="replace")
    hidden = key_lines(text)  # a private key's lines, hidden even when its BEGIN is not shown
    if view.whole:
        if view.hashline:
            body = hide_rows(format_hashlines(text), hidden)
        else:
            body = hidden.hide_text(_drop_final_newline(text))
        result = ToolResult(frame(body))
    else:
        result = _render_range(text, shown, view, hidden)
    if not result.is_error and "\ufffd" not in text:  # edit_file takes valid UTF-8 only
        from rho_tools_fs.preparse import preparse  # not at startup: it needs the syntax module

        preparse(shown, data)
    return result


def _render_range(text: str, shown: str, view: _View, hidden: KeyBlockLines) -> ToolResult:
    """Lines `view.offset` … of `text`, framed, with a footer if more lines follow."""
    lines = (text if not view.hashline else text.replace("\r\n", "\n")).split("\n")
    if lines[-1] == "":
        lines.pop()  # the final line ending (or the empty file)
    total = len(lines)
    if view.offset > max(total, 1):
        return ToolResult.error(
            f"read_file: offset {view.offset} is past the end of '{escape_controls(shown)}' "
            f"({total} line{'' if total == 1 else 's'})"
        )
    last = total if view.limit is None else min(total, view.offset - 1 + view.limit)
    chosen = lines[view.offset - 1 : last]
    if view.hashline:
        blobs = "\n".join(chosen).encode("utf-8", "surrogatepass").split(b"\n")
        body = hide_rows(hashline_rows(blobs, view.offset) if chosen else "", hidden, view.offset)
    else:
        body = "\n".join(chosen)
        if body.endswith("\r") and (last < total or text.endswith("\n")):
            body = body[:-1]  # the `\r` of the last line's `\r\n`
        body = hidden.hide_text(body, view.offset)
    details = {"first": view.offset, "last": last, "total": total}
    if last >= total:
        return ToolResult(frame(body), details=details)
    footer = f"[lines {view.offset}-{last} of {total}; read on with offset={last + 1}]"
    return ToolResult(f"{frame(body)}\n{footer}", details=details)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    """`read_file src/main.rs: 120 lines` (`: lines 1-2000 of 29000` for a range), or the error."""
    path = escape_controls(str(arguments.get("path", "?"))[:100])
    if result.is_error:
        return f"read_file {path}: failed — {result.output.splitlines()[0]}"[:200]
    details = result.details if isinstance(result.details, dict) else {}
    if details:
        return f"read_file {path}: lines {details['first']}-{details['last']} of {details['total']}"
    body = result.output[len(OPEN_TAG) + 1 : -(len(CLOSE_TAG) + 1)]
    count = body.count("\n") + 1 if body else 0
    return f"read_file {path}: {count} line{'' if count == 1 else 's'}"


def _continuation(arguments: dict[str, Any], result: ToolResult, kept_lines: int) -> str | None:
    """`read on with read_file offset=N` after a result cut to fit the context window."""
    details = result.details if isinstance(result.details, dict) else {}
    first = details.get("first", arguments.get("offset", 1))  # a whole read has no details
    if result.is_error or not isinstance(first, int) or kept_lines < 1:
        return None
    shown = kept_lines - 1  # the first line is the `<context>` frame
    return f"read on with read_file offset={first + shown} (and a limit)"


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline, continuation=_continuation)
async def read_file(
    path: str,
    hashline: bool = True,
    offset: int = 1,
    limit: int | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Read a text file, framed as `<context>` … `<context:end>`. With hashline each line is
    prefixed with its anchor, e.g. `12#BTMZ:` in `12#BTMZ:fn main() {`; edit_file addresses
    lines by anchor (`12#BTMZ`); the prefix is not part of the file. A `<context…` tag in the
    file shows with one more backslash after the `<` (`<\\context…`) than it has. A range
    keeps the real line numbers; when lines follow, a last line says where to read on.
    Binary files and files over 10 MiB are refused; invalid UTF-8 shows as U+FFFD.

    Args:
        path: The file.
        hashline: Prefix lines with anchors; false: the raw text.
        offset: First line to show (from 1).
        limit: How many lines to show at most (default: to the end).
    """
    if offset < 1:
        return ToolResult.error(f"read_file: offset must be 1 or more (got {offset})")
    if limit is not None and limit < 1:
        return ToolResult.error(f"read_file: limit must be 1 or more (got {limit})")
    view = _View(hashline, offset, limit)
    return await asyncio.to_thread(_read, ctx.root, path, view, ctx.key_block_lines)


__all__ = [
    "BINARY_SNIFF_BYTES",
    "CLOSE_TAG",
    "MAX_READ_BYTES",
    "OPEN_TAG",
    "KeyLines",
    "escape_framing",
    "frame",
    "read_file",
]
