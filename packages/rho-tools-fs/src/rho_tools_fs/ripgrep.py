"""Running ripgrep (`rg`) for find_files and search_files.

`rg` comes from the `ripgrep` wheel (next to the interpreter), else from PATH. The
environment variable `RHO_RG` overrides the lookup: a path to use instead, or empty to act
as if ripgrep were missing (the tools then use their pure-Python fallback).

Every run is from the project root with relative paths, reads no ripgrep config file, never
follows symlinks and skips hidden files; results are put in path order (so results and
truncation are the same on every run). ripgrep's own handling of `.git/info/exclude`, the global excludes file
and ignore files above the search path is switched off: `IgnoreRules.outside_rules` hands
those to it as one `--ignore-file`, so ripgrep and the fallback apply the same rules.
What ripgrep reports is only a candidate until the sandbox confirms it
(`rho_tools_fs.verified`). ripgrep dies with rho (`die_with_parent`), even if rho is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import TracebackType

from rho_kernel.process import die_with_parent, die_with_parent_argv

#: Environment variable overriding where `rg` is found ("" hides it).
RG_ENV = "RHO_RG"
#: Files larger than this are not searched (ripgrep `--max-filesize` syntax).
MAX_FILESIZE = "10M"
#: The same limit in bytes, for the fallback.
MAX_FILESIZE_BYTES = 10 * 1024 * 1024
#: How much of ripgrep's stderr is kept for error messages.
_STDERR_KEEP = 16 * 1024
_CHUNK = 64 * 1024

#: Options common to every run.
BASE_ARGS: tuple[str, ...] = (
    "--no-config",
    "--no-require-git",
    "--no-ignore-parent",
    "--no-ignore-exclude",
    "--no-ignore-global",
    "--max-filesize",
    MAX_FILESIZE,
)
#: Sorted output (ripgrep then walks with one thread).
SORT_ARGS: tuple[str, ...] = ("--sort", "path")


def find_rg() -> str | None:
    """The `rg` executable to run, or None when there is none (or `RHO_RG` is empty)."""
    override = os.environ.get(RG_ENV)
    if override is not None:
        return override or None
    name = "rg.exe" if os.name == "nt" else "rg"
    bundled = Path(sys.executable).with_name(name)
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    return shutil.which("rg")


#: The ignore files ripgrep opens by itself as it walks (the others rho hands to it).
WALKED_IGNORE_NAMES = frozenset({".gitignore", ".ignore", ".rgignore"})


def ignore_file_would_block(root: Path, scope: str) -> str | None:
    """The first ignore file under `scope` (relative to `root`) that is not a regular file,
    or None.

    ripgrep opens the ignore files it meets with a blocking open, so a FIFO named
    `.gitignore` (which a command can create) would hold it forever. Callers use the
    pure-Python engine, which reads ignore files through the sandbox, when one exists.
    The walk follows no link to a directory and skips hidden ones, as ripgrep does; it reads
    only names and types. Blocking: run it in a thread.
    """
    pending = [root / scope if scope else root]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.name in WALKED_IGNORE_NAMES and not entry.is_file():
                    return os.path.relpath(entry.path, root)
                if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
            except OSError:
                continue
    return None


async def rg_would_block(root: Path, scope_path: str, scope_is_dir: bool) -> bool:
    """Whether ripgrep, searching the directory `scope_path`, would meet an ignore file that
    is not a regular file (see `ignore_file_would_block`)."""
    if not scope_is_dir:
        return False
    return await asyncio.to_thread(ignore_file_would_block, root, scope_path) is not None


@contextlib.contextmanager
def ignore_file(text: str) -> Iterator[list[str]]:
    """`--ignore-file` arguments for `text` (none when empty), in a private temporary file."""
    if not text:
        yield []
        return
    fd, name = tempfile.mkstemp(prefix="rho-ignore-", suffix=".txt")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8", errors="surrogateescape"))
        yield ["--ignore-file", name]
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


class RipgrepRun:
    """One `rg` process: read its output with `records()`, then `finish()`.

    Leaving the `async with` block kills the process if it is still running (an abort, or
    enough results), so a cancelled tool never leaves ripgrep behind.
    """

    def __init__(
        self,
        rg: str,
        args: list[str],
        cwd: Path,
        *,
        separator: bytes = b"\n",
        pass_fds: tuple[int, ...] = (),
    ) -> None:
        if len(separator) != 1:
            raise ValueError("the separator is one byte")
        self.command = [rg, *args]
        self.cwd = cwd
        self.separator = separator
        self.pass_fds = pass_fds
        self._process: asyncio.subprocess.Process | None = None
        self._stderr: asyncio.Task[bytes] | None = None

    async def __aenter__(self) -> RipgrepRun:
        prefix = die_with_parent_argv()  # no preexec_fn: spawning stays cheap
        if prefix and shutil.which(self.command[0]) is None:
            # As without the prefix: a missing program fails here, not as an exit status.
            raise FileNotFoundError(errno.ENOENT, "no such program", self.command[0])
        self._process = await asyncio.create_subprocess_exec(
            *prefix,
            *self.command,
            cwd=self.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            pass_fds=self.pass_fds,
            preexec_fn=None if prefix else die_with_parent(),  # from the loop's thread
        )
        self._stderr = asyncio.ensure_future(self._drain_stderr())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.shield(process.wait())
        if self._stderr is not None and not self._stderr.done():
            self._stderr.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._stderr

    async def _drain_stderr(self) -> bytes:
        assert self._process is not None and self._process.stderr is not None
        kept = bytearray()
        while chunk := await self._process.stderr.read(_CHUNK):
            if len(kept) < _STDERR_KEEP:
                kept += chunk[: _STDERR_KEEP - len(kept)]
        return bytes(kept)

    async def records(self) -> AsyncIterator[bytes]:
        """Each separator-terminated record of stdout (the separator removed)."""
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        buffer = bytearray()
        while chunk := await stdout.read(_CHUNK):
            search_from = len(buffer)  # what is buffered holds no separator
            buffer += chunk
            cut = 0
            index = buffer.find(self.separator, search_from)
            while index != -1:
                yield bytes(buffer[cut:index])
                cut = index + len(self.separator)
                index = buffer.find(self.separator, cut)
            del buffer[:cut]
        if buffer:
            yield bytes(buffer)

    async def finish(self) -> tuple[int, str]:
        """Wait for the exit; the exit status and (the start of) stderr as text."""
        assert self._process is not None and self._stderr is not None
        status = await self._process.wait()
        stderr = await self._stderr
        return status, stderr.decode("utf-8", errors="replace")


def path_order(path: str) -> tuple[bytes, ...]:
    """The sort key of ripgrep's `--sort path`: depth first, names compared as bytes."""
    return tuple(os.fsencode(path).split(b"/"))


def error_text(stderr: str) -> str:
    """ripgrep's error message without the `rg: ` prefixes, on one line or a few."""
    lines = [line.removeprefix("rg: ").rstrip() for line in stderr.strip().splitlines()]
    return "\n".join(line for line in lines if line) or "ripgrep failed"


__all__ = [
    "BASE_ARGS",
    "MAX_FILESIZE",
    "MAX_FILESIZE_BYTES",
    "RG_ENV",
    "SORT_ARGS",
    "RipgrepRun",
    "error_text",
    "find_rg",
    "ignore_file",
    "ignore_file_would_block",
    "path_order",
    "rg_would_block",
]
