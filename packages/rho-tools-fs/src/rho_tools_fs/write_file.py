"""The `write_file` tool: create or overwrite a file inside the sandbox, atomically."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
from pathlib import Path

from rho_kernel.security.sandbox import SandboxError
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool


class _WriteFailed(Exception):
    """A write step failed; the message is meant for the model."""


def _explain(exc: OSError) -> str:
    if isinstance(exc, NotADirectoryError):
        return "a parent of the path is a file, not a directory"
    return (exc.strerror or str(exc)).lower()


def _missing_dirs(directory: Path) -> list[Path]:
    """The ancestors of `directory` (itself included) that do not exist, outermost first."""
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current) and current.parent != current:
        missing.append(current)
        current = current.parent
    missing.reverse()
    return missing


def _make_dirs(directories: list[Path]) -> list[Path]:
    """Create `directories` in order; on failure remove the ones created and raise."""
    created: list[Path] = []
    try:
        for directory in directories:
            directory.mkdir()
            created.append(directory)
    except OSError as exc:
        _remove_dirs(created)
        raise _WriteFailed(f"cannot create directory '{directory.name}': {_explain(exc)}") from None
    return created


def _remove_dirs(created: list[Path]) -> None:
    for directory in reversed(created):
        with contextlib.suppress(OSError):
            directory.rmdir()


def _write_atomically(target: Path, data: bytes) -> None:
    """Write `data` to a temporary file next to `target`, fsync it, then rename it over."""
    directory = target.parent
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = stat.S_IMODE(target.stat().st_mode)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        temp = directory / f".{target.name}.{secrets.token_hex(4)}.rho-tmp"
        try:
            fd = os.open(temp, flags, 0o666)  # the umask applies, as for a new file
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise _WriteFailed(_explain(exc)) from None
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # keep an existing file's permissions
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise _WriteFailed(_explain(exc)) from None
    with contextlib.suppress(OSError):  # make the rename durable (best effort)
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _write(target: Path, data: bytes) -> None:
    """Create missing parents and write; on failure nothing new is left behind."""
    try:
        created = _make_dirs(_missing_dirs(target.parent))
    except OSError as exc:
        raise _WriteFailed(_explain(exc)) from None
    try:
        _write_atomically(target, data)
    except OSError as exc:
        _remove_dirs(created)
        raise _WriteFailed(_explain(exc)) from None
    except BaseException:
        _remove_dirs(created)
        raise


@tool(risk=Risk.WRITE, phase=Phase.EXECUTION)
async def write_file(path: str, content: str, *, ctx: ToolContext) -> ToolResult:
    """Create a file, or replace an existing file's entire content, in the project.

    Missing parent directories are created. The write is atomic: the file holds either its
    old content or the new one, never a mix. To change part of an existing file prefer
    edit_file. Content is written exactly as given, encoded as UTF-8.

    Args:
        path: File path relative to the project root (an absolute path must be inside the project).
        content: The complete new content of the file.
    """
    try:
        target = ctx.root.validate_for_write(path)
    except SandboxError as exc:
        return ToolResult.error(
            f"write_file: {exc}. Paths are relative to the project root ({ctx.root.path}); "
            "absolute paths must lie inside it."
        )
    if target.is_dir():
        return ToolResult.error(f"write_file: '{path}' is a directory; give a file path")
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ToolResult.error(
            f"write_file: content is not valid Unicode (unpaired surrogate at character "
            f"{exc.start}); nothing was written"
        )
    try:
        await asyncio.to_thread(_write, target, data)
    except _WriteFailed as exc:
        return ToolResult.error(f"write_file: failed to write '{path}': {exc}")
    return ToolResult(f"wrote {len(data)} bytes to {ctx.root.relative(target)}")


__all__ = ["write_file"]
