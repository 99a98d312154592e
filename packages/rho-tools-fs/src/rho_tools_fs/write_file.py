"""The `write_file` tool: create or overwrite a file inside the sandbox, atomically.

The destination's directory is reached through the sandbox root (`SandboxRoot.write_parent`)
and held open; the temporary file is created in it with `O_EXCL | O_NOFOLLOW` and renamed over
the destination relative to that directory fd, so a symlink swapped in anywhere on the path
can neither redirect the write outside the project nor be written through.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_kernel import escape_controls, run_to_completion
from rho_kernel.security import (
    FileTypeError,
    PathNotFoundError,
    ProtectedPathError,
    SandboxError,
    SandboxRoot,
    WriteFailed,
    explain_write_error,
    replace_atomically,
)
from rho_kernel.tools import (
    Phase,
    PlanChanged,
    Preview,
    Risk,
    ToolContext,
    ToolResult,
    fingerprint,
    tool,
    unified_preview,
)

#: The largest file whose change is previewed (a bigger one is asked about without a diff).
MAX_PREVIEW_BYTES = 8 * 1024 * 1024


def _current(root: SandboxRoot, path: str) -> bytes | None:
    """The file's bytes now (None: there is no file), through the sandbox; raises
    `OSError`/`SandboxError` when it cannot be read, `ValueError` when it is too large."""
    try:
        with root.open_read(path) as handle:
            data = handle.read(MAX_PREVIEW_BYTES + 1)
    except (FileNotFoundError, PathNotFoundError):
        return None
    if len(data) > MAX_PREVIEW_BYTES:
        raise ValueError("too large to preview")
    return data


async def _preview(arguments: dict[str, Any], ctx: ToolContext) -> Preview | None:
    """The diff this write would make, and the file it was planned from."""
    import asyncio

    path, content = arguments.get("path"), arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    try:
        old = await asyncio.to_thread(_current, ctx.root, path)
        shown = await asyncio.to_thread(_written, ctx.root, path)
    except (OSError, SandboxError, ValueError):
        return None  # the write reports what is wrong, or writes without a preview
    text = None if old is None else old.decode("utf-8", errors="replace")
    diff = await asyncio.to_thread(
        unified_preview, escape_controls(shown), text, content, redactor=ctx.redactor
    )
    return Preview(diff, fingerprint(old))


def _written(root: SandboxRoot, path: str) -> str:
    """The file a write of `path` replaces, as the project names it: links resolved, as
    approval rules match it (`src/up/Makefile` with `src/up -> ..` is `Makefile`)."""
    return root.relative(root.validate_for_write(path))


def _still_planned(root: SandboxRoot, path: str, planned: str) -> None:
    """Raise `PlanChanged` unless the file is still the one the approved preview showed."""
    try:
        current = _current(root, path)
    except (OSError, SandboxError, ValueError):
        raise PlanChanged(path) from None
    if fingerprint(current) != planned:
        raise PlanChanged(path)


def _write(root: SandboxRoot, path: str, data: bytes, planned: str | None = None) -> Path:
    """Create missing parents and write (only over the file the approved preview showed, when
    there was one); on failure nothing new is left behind."""
    try:
        target = root.write_parent(path, make_parents=True)
    except NotADirectoryError as exc:
        raise WriteFailed(explain_write_error(exc)) from None
    except OSError as exc:
        raise WriteFailed(
            f"cannot create directory '{escape_controls(str(exc.filename))}': {explain_write_error(exc)}"
        ) from None
    check = None if planned is None else (lambda: _still_planned(root, path, planned))
    with target:  # an exception removes the directories made for this write
        replace_atomically(target, data, before_replace=check)
    return target.path


def _sandbox_refusal(root: SandboxRoot, path: str, exc: SandboxError) -> str:
    """The model's message for a path the sandbox refused."""
    if isinstance(exc, ProtectedPathError):
        return f"write_file: {exc}"
    return (
        f"write_file: {exc}. Paths are relative to the project root ({root.path}); "
        "absolute paths must lie inside it."
    )


def _unencodable(content: str) -> str | None:
    """Why `content` cannot be written as UTF-8 (None: it can)."""
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"write_file: content is not valid Unicode (unpaired surrogate at character "
            f"{exc.start}); nothing was written"
        )
    return None


def _check(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
    """Before the approval is asked (blocking, in a worker thread): the content encodes,
    the sandbox accepts the path, and it does not name a directory."""
    path, content = arguments["path"], arguments["content"]
    problem = _unencodable(content)
    if problem is not None:
        return problem
    try:
        ctx.root.validate_for_write(path)
    except SandboxError as exc:
        return _sandbox_refusal(ctx.root, path, exc)
    try:
        ctx.root.open_read(path).close()
    except FileTypeError as exc:
        if exc.kind == "directory":
            return f"write_file: '{escape_controls(path)}' is a directory; give a file path"
    except (OSError, SandboxError):
        pass  # a new file; or one it cannot read, which is no reason it cannot be written
    return None


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    """`write_file notes.md: 120 bytes`, or the error's first line."""
    path = escape_controls(str(arguments.get("path", "?"))[:100])
    if result.is_error:
        return f"write_file {path}: failed — {result.output.splitlines()[0]}"[:200]
    words = result.output.split()
    size = words[1] if len(words) > 1 and words[1].isdigit() else "?"
    return f"write_file {path}: {size} bytes"


@tool(
    risk=Risk.WRITE,
    phase=Phase.EXECUTION,
    outline=_outline,
    rule_subject="path",
    preview=_preview,
    check=_check,
)
async def write_file(path: str, content: str, *, ctx: ToolContext) -> ToolResult:
    """Create a file or replace its whole content, atomically; missing parent directories are
    created. To change part of a file, use edit_file.

    Args:
        path: The file.
        content: The complete new content, written exactly as given (UTF-8).
    """
    problem = _unencodable(content)
    if problem is not None:
        return ToolResult.error(problem)
    data = content.encode("utf-8")
    try:
        # An abort must not turn a finished write into "cancelled": wait for the thread.
        written = await run_to_completion(_write, ctx.root, path, data, ctx.planned)
    except FileTypeError:
        return ToolResult.error(
            f"write_file: '{escape_controls(path)}' is a directory; give a file path"
        )
    except SandboxError as exc:
        return ToolResult.error(_sandbox_refusal(ctx.root, path, exc))
    except WriteFailed as exc:
        return ToolResult.error(f"write_file: failed to write '{escape_controls(path)}': {exc}")
    return ToolResult(f"wrote {len(data)} bytes to {escape_controls(ctx.root.relative(written))}")


__all__ = ["write_file"]
