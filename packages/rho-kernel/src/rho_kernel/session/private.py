"""Files and folders only their owner can read: session files are 0600, their folders 0700.

The modes are set explicitly when rho creates something, so the umask cannot widen them.
Folders and files that already exist are left as they are.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from rho_kernel.security.regular_file import NotRegularFileError, file_kind

DIR_MODE = 0o700
FILE_MODE = 0o600

_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO for writing must not wait


def make_private_dir(directory: Path) -> None:
    """Create `directory` and any missing parents, each with mode 0700.

    Parents that exist keep their mode. Raises OSError when a folder cannot be created
    (or a path component is not a folder).
    """
    missing: list[Path] = []
    current = Path(directory)
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(folder)) from None
            continue  # created meanwhile by someone else: theirs, not ours to change
        _chmod(folder, DIR_MODE)


def create_private_file(path: Path) -> BinaryIO:
    """Create the new file `path` (mode 0600) and return it open for binary appends.

    Raises FileExistsError when `path` exists (symbolic links included), OSError otherwise.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _BINARY | _NOFOLLOW
    fd = os.open(path, flags, FILE_MODE)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def open_private_file(path: Path, flags: int) -> int:
    """Open (creating with mode 0600 if missing) `path` without following a symbolic link.

    `flags` are added to `O_CREAT`; returns the file descriptor. Anything but a regular file
    there (a FIFO, which a read would wait on forever) raises `NotRegularFileError`.
    """
    fd = os.open(path, flags | os.O_CREAT | _BINARY | _NOFOLLOW | _NONBLOCK, FILE_MODE)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, file_kind(mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _chmod(path: Path, mode: int) -> None:
    # The umask applied at creation can only remove bits; set exactly what was asked for.
    with contextlib.suppress(NotImplementedError):
        os.chmod(path, mode)


__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "create_private_file",
    "make_private_dir",
    "open_private_file",
]
