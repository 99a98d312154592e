"""The `batch_read` tool: several text files in one call, each framed and hashlined.

Each file is opened through the sandbox like read_file and rendered as
`<context file="{path}">` … `<context:end>`; a file that cannot be read becomes an
`[{i}] error: …` line in its place. The header counts only the files actually read.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from rho_kernel import escape_controls
from rho_kernel.security import FileTypeError, PathNotFoundError, SandboxError, SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_fs.hashline import format_hashlines, hide_rows
from rho_tools_fs.read_file import (
    BINARY_SNIFF_BYTES,
    CLOSE_TAG,
    MAX_READ_BYTES,
    KeyLines,
    escape_framing,
)
from rho_tools_fs.scope import sandbox_hint
from rho_tools_fs.tree_walk import display_path

#: Most paths one call may name.
MAX_PATHS = 20
#: The files of one call together are read up to this many bytes.
MAX_TOTAL_BYTES = 10 * 1024 * 1024


class _ReadFailed(Exception):
    """A file could not be read; the message is meant for the model."""


def _attribute(text: str) -> str:
    """`text` for a double-quoted attribute value."""
    for raw, escaped in (("&", "&amp;"), ('"', "&quot;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(raw, escaped)
    return text.replace("\n", "&#10;").replace("\r", "&#13;")


def _open(root: SandboxRoot, path: str) -> Any:
    try:
        return root.open_read(path)
    except PathNotFoundError:
        raise _ReadFailed(f"'{escape_controls(path)}' not found. {sandbox_hint(root)}") from None
    except FileTypeError as exc:
        raise _ReadFailed(
            f"'{escape_controls(path)}' is not a regular file (it is a {exc.kind})"
        ) from None
    except SandboxError as exc:
        raise _ReadFailed(f"{exc}. {sandbox_hint(root)}") from None
    except OSError as exc:
        raise _ReadFailed(
            f"failed to read '{escape_controls(path)}': {exc.strerror or exc}"
        ) from None


def _load(root: SandboxRoot, path: str, budget: int) -> tuple[str, bytes]:
    """The root-relative name and the bytes of the text file `path` (at most `budget`)."""
    with _open(root, path) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(BINARY_SNIFF_BYTES)
            if b"\0" in head:
                raise _ReadFailed(f"'{escape_controls(path)}' is a binary file ({size} bytes)")
            limit = min(MAX_READ_BYTES, budget)
            data = head + handle.read(max(limit + 1 - len(head), 0)) if size <= limit else head
        except OSError as exc:
            raise _ReadFailed(
                f"failed to read '{escape_controls(path)}': {exc.strerror or exc}"
            ) from None
        shown = root.relative(Path(handle.name))
    size = max(size, len(data))
    if size > MAX_READ_BYTES:
        raise _ReadFailed(
            f"'{escape_controls(path)}' is too large ({size} bytes; the limit is 10 MiB)"
        )
    if size > budget:
        raise _ReadFailed(
            f"'{escape_controls(path)}' was not read: this call's files together may hold at most 10 MiB; "
            "read it in another call"
        )
    return shown, data


def _render(shown: str, data: bytes, key_lines: KeyLines) -> str:
    text = data.decode("utf-8", errors="replace")
    rows = hide_rows(format_hashlines(text), key_lines(text))
    body = escape_framing(rows)
    if "\ufffd" not in text:  # edit_file takes valid UTF-8 only
        from rho_tools_fs.preparse import preparse  # not at startup: it needs the syntax module

        preparse(shown, data)
    opening = f'<context file="{_attribute(escape_controls(display_path(shown)))}">'
    return f"{opening}\n{body}\n{CLOSE_TAG}" if body else f"{opening}\n{CLOSE_TAG}"


def _batch(root: SandboxRoot, paths: list[str], key_lines: KeyLines) -> str:
    blocks: list[str] = []
    read = 0
    budget = MAX_TOTAL_BYTES
    for index, path in enumerate(paths, 1):
        try:
            shown, data = _load(root, path, budget)
        except _ReadFailed as exc:
            blocks.append(f"[{index}] error: {exc}")
            continue
        budget -= len(data)
        read += 1
        blocks.append(_render(shown, data, key_lines))
    return f"batch_read: {read}/{len(paths)} files read\n\n" + "\n\n".join(blocks)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    if result.is_error:
        return "batch_read: error"
    header = result.output.split("\n", 1)[0]
    counts = header.removeprefix("batch_read: ").split(" ", 1)[0]
    read, _, asked = counts.partition("/")
    failed = int(asked) - int(read)
    return f"batch_read {read} files" + (f" ({failed} failed)" if failed else "")


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def batch_read(paths: list[str], *, ctx: ToolContext) -> ToolResult:
    """Read up to 20 text files in one call, each framed as `<context file="PATH">` …
    `<context:end>` with anchors, as read_file shows it. A file that cannot be read shows as
    `[N] error: …` (N from 1); the others are still read. At most 10 MiB in all.

    Args:
        paths: The files (1 to 20).
    """
    if not paths:
        return ToolResult.error("batch_read: paths array is empty")
    if len(paths) > MAX_PATHS:
        return ToolResult.error(f"batch_read: max {MAX_PATHS} paths per call")
    return ToolResult(await asyncio.to_thread(_batch, ctx.root, paths, ctx.key_block_lines))


__all__ = ["MAX_PATHS", "MAX_TOTAL_BYTES", "batch_read"]
