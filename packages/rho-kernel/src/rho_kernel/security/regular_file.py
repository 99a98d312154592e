"""Opening a file by path that a repository, the model or a command may have made into a FIFO,
a device, a socket or a directory.

A plain `open()` of a FIFO waits for a writer that never comes, so rho would hang; a device
can be endless or have side effects. Every file rho opens by path because of a repository or
the model goes through here: the type is checked with `stat` before anything is opened (a
device is never opened at all), then the file is opened with `O_NONBLOCK` (a FIFO swapped in
between cannot make the open wait) and checked again with `fstat` on the descriptor, which is
what is read. Reading is capped.

Files inside the project that a tool reads go through `SandboxRoot.open_read`, which applies
the same rules relative to the project root.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotRegularFileError(OSError):
    """The path is a FIFO, device, socket, directory (or, not following links, a link).

    `kind` names what was found; `str()` reads like any `OSError`, and `strerror` is
    `is a FIFO, not a regular file`.
    """

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        article = "an" if kind[0] in "aeiou" else "a"
        super().__init__(errno.EINVAL, f"is {article} {kind}, not a regular file", os.fspath(path))
        self.kind = kind


class FileTooLargeError(OSError):
    """The file is larger than the caller reads (`limit` bytes)."""

    def __init__(self, path: str | os.PathLike[str], limit: int) -> None:
        super().__init__(errno.EFBIG, f"is larger than {limit} bytes", os.fspath(path))
        self.limit = limit


def file_kind(mode: int) -> str:
    """A word for the type of file `mode` describes (for messages)."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def check_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> bool:
    """True when a regular file is at `path`, False when nothing is (or a parent is missing).

    Anything else raises `NotRegularFileError`; nothing is opened. For a library that opens
    the file by path itself (SQLite): the file can still be swapped between this check and
    that open.
    """
    try:
        info = os.stat(path, follow_symlinks=follow_symlinks)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(path, file_kind(info.st_mode))
    return True


def open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> BinaryIO:
    """The regular file at `path`, open for reading in binary mode (close it), never waiting.

    `NotRegularFileError` for anything else (also when it is swapped in while opening),
    `FileNotFoundError` when it is missing, other `OSError`s as the system reports them.
    Without `follow_symlinks`, a symbolic link at `path` itself is refused.
    """
    check_regular_or_raise(path, follow_symlinks=follow_symlinks)
    flags = _FLAGS if follow_symlinks else _FLAGS | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ELOOP):  # a socket or device, a link: swapped in
            raise NotRegularFileError(path, "special file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path, file_kind(info.st_mode))
        os.set_blocking(fd, True)  # O_NONBLOCK only kept the open from waiting
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_append(path: str | os.PathLike[str]) -> BinaryIO:
    """The existing regular file at `path`, open for binary appends, never waiting (a FIFO
    with no reader fails at once, one with a reader is refused by `fstat`)."""
    flags = _FLAGS | os.O_WRONLY | os.O_APPEND  # O_RDONLY is 0
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO without a reader, a socket, a device
            raise NotRegularFileError(path, "special file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path, file_kind(info.st_mode))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def check_regular_or_raise(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> None:
    """`check_regular`, with a missing file raising `FileNotFoundError`."""
    if not check_regular(path, follow_symlinks=follow_symlinks):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))


def read_regular_file(
    path: str | os.PathLike[str], *, limit: int, follow_symlinks: bool = True
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them, never waiting.

    Raises like `open_regular`, and `FileTooLargeError` for a file longer than `limit`.
    """
    with open_regular(path, follow_symlinks=follow_symlinks) as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise FileTooLargeError(path, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(path, limit)
    return data


def read_optional(path: Path, *, limit: int) -> bytes | None:
    """`read_regular_file(path)`, or None when there is nothing at `path`."""
    try:
        return read_regular_file(path, limit=limit)
    except (FileNotFoundError, NotADirectoryError):
        return None


__all__ = [
    "FileTooLargeError",
    "NotRegularFileError",
    "check_regular",
    "check_regular_or_raise",
    "file_kind",
    "open_append",
    "open_regular",
    "read_optional",
    "read_regular_file",
]
