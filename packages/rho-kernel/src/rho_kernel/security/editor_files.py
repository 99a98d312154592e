"""Files as the editor driving rho holds them: unsaved buffers read, writes shown for review.

A front end whose client holds the project's files open (an ACP editor offering
`fs/read_text_file` and `fs/write_text_file`) gives the runtime an `EditorFiles`; the tools
then get a `SandboxRoot` bound to it (`SandboxRoot.with_editor`). Nothing about the sandbox
changes: every path is first walked and checked exactly as for the disk (the root's fd,
`.git`/`.rho`, rho's state directory, the file's type), and only then is the editor asked,
by the canonical path the walk reached.

The editor opens that path itself, so rho checks just before and (for reads) just after
that the path still leads to the file the walk reached: a directory swapped for a symlink
in between is refused. A swap made and undone within the editor's own call cannot be seen
from here; the disk path (`replace_atomically`) has no such window.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from rho_kernel.security.errors import SandboxError

if TYPE_CHECKING:
    from rho_kernel.security.handles import WriteTarget

#: A file whose first bytes hold a NUL is binary: the editor is not asked for it.
_SNIFF_BYTES = 8192
#: Files larger than this on disk are read from the disk (the tools refuse them anyway).
_MAX_TEXT_BYTES = 10 * 1024 * 1024


class EditorFiles(Protocol):
    """The editor's side of the project's text files (see the module docstring).

    Both methods block and are called from worker threads only; an implementation that
    is called on its event loop's thread answers None/False (the disk) rather than wait
    on itself. Failures raise `OSError` with a message for the model.
    """

    def read_text(self, path: Path) -> str | None:
        """The editor's text of the file at the canonical `path` (its unsaved buffer, if
        it has one), or None to read it from the disk."""
        ...

    def write_text(self, path: Path, text: str) -> bool:
        """Hand the editor `text` as the whole new content of `path` (it creates a missing
        file); False when the editor does not take writes (the disk is written instead)."""
        ...


class EditorCopy(io.BytesIO):
    """A file opened through the sandbox, read as the editor holds it: reads return the
    editor's text; `name` and `fileno()` are the file on disk (its size and identity)."""

    def __init__(self, data: bytes, disk: io.BufferedReader) -> None:
        super().__init__(data)
        self.name = disk.name
        self._disk = disk

    def fileno(self) -> int:
        return self._disk.fileno()

    def close(self) -> None:
        self._disk.close()
        super().close()


def _leads_to(path: Path, fd: int) -> bool:
    """Whether `path`, resolved now, is the file or directory held as `fd`."""
    try:
        named, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _moved(path: Path) -> SandboxError:
    return SandboxError(f"'{path}' was moved or replaced while it was being read; read it again")


def read_through(editor: EditorFiles, disk: io.BufferedReader) -> BinaryIO:
    """`disk` (a regular file the sandbox opened, `name` its canonical path) as the editor
    holds it; binary and oversized files, and files the editor leaves to the disk, are
    `disk` itself. Raises `OSError` when the editor fails, `SandboxError` when the path no
    longer leads to the file (`disk` is closed on every error)."""
    path = Path(disk.name)
    try:
        head = disk.read(_SNIFF_BYTES)
        disk.seek(0)
        if b"\0" in head or os.fstat(disk.fileno()).st_size > _MAX_TEXT_BYTES:
            return disk
        if not _leads_to(path, disk.fileno()):
            raise _moved(path)
        text = editor.read_text(path)
        if text is None:
            return disk
        if not _leads_to(path, disk.fileno()):
            raise _moved(path)
    except BaseException:
        disk.close()
        raise
    return EditorCopy(text.encode("utf-8", errors="replace"), disk)


def write_through(
    editor: EditorFiles,
    target: WriteTarget,
    data: bytes,
    before_replace: Callable[[], None] | None,
) -> bool:
    """Hand `data` to the editor as the new content of `target` after `before_replace`;
    False (nothing done) when the disk must be written instead: `data` is not UTF-8, the
    directory is not held as an fd, the name holds something other than a regular file (a
    symlink or special file is replaced on the disk, as always), or the editor does not
    take writes. Raises `SandboxError` when the directory's path no longer leads to the
    directory checked, `OSError` when the editor fails."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    directory_fd = target.directory.fd
    if directory_fd is None:
        return False
    try:
        entry = target.directory.lstat(target.name)
    except FileNotFoundError:
        entry = None
    if entry is not None and not stat.S_ISREG(entry.st_mode):
        return False
    if before_replace is not None:
        before_replace()
    if not _leads_to(target.path.parent, directory_fd):
        raise SandboxError(
            f"'{target.path.parent}' was moved or replaced while the file was being "
            "written; nothing was written"
        )
    return editor.write_text(target.path, text)


__all__ = ["EditorCopy", "EditorFiles", "read_through", "write_through"]
