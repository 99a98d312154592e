"""Exclusive OS file locks, so that one process at a time reads, changes and rewrites a file.

rho's stores under `~/.rho` (the trust store, the sandbox grants) are read, changed and
written back whole. Two rho processes doing that at the same instant would each write what
they read plus their own change, and the last writer's file would lose the other's. A store
is therefore changed only inside `locked_update(path)`: it holds an exclusive lock on the
sidecar file `<name>.lock` next to the store, and the store is read again inside the block.

The lock is `flock` on Linux and macOS and `msvcrt.locking` on Windows; it is released when
the block ends and dies with the process, so a lock file left behind blocks nobody. The
sidecar is kept (never removed), so every process always locks the same file. The session
lock (`rho_kernel.session.lock`) is built on the same primitives, without waiting.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from rho_kernel.security.private_file import PrivateFileError, private_directory

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

#: What a store's lock file is named after: `<store name>.lock`.
LOCK_SUFFIX = ".lock"
# Windows locks byte ranges and a locked range cannot be read by others: lock one byte far
# past any content, so that a lock file can still be read while it is held.
_WINDOWS_LOCK_OFFSET = 1 << 20
_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def lock_file_for(path: Path) -> Path:
    """The sidecar lock file of `path`: `<name>.lock` next to it."""
    return path.with_name(path.name + LOCK_SUFFIX)


@contextlib.contextmanager
def locked_update(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of `path` (waiting for another holder to finish) while the
    block runs: read the file, change it and write it back inside the block.

    The lock file is created private (0600, in a 0700 directory) and never through a
    symbolic link. Raises `PrivateFileError` when it cannot be created or locked.
    """
    lock_path = lock_file_for(path)
    private_directory(lock_path.parent)
    try:
        fd = os.open(lock_path, _FLAGS, 0o600)
    except OSError as exc:
        raise PrivateFileError(f"cannot lock {path}: {exc.strerror or exc}") from None
    try:
        try:
            wait_lock(fd)
        except OSError as exc:
            raise PrivateFileError(f"cannot lock {path}: {exc.strerror or exc}") from None
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":

    def try_lock(fd: int) -> bool:
        """Take the exclusive lock of `fd` if no one holds it; whether it was taken."""
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def wait_lock(fd: int) -> None:
        """Take the exclusive lock of `fd`, waiting while another process holds it."""
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for about 10 seconds
                return
            except OSError as exc:
                if exc.errno != errno.EDEADLK:
                    raise

    def unlock(fd: int) -> None:
        """Release the lock of `fd`."""
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:

    def try_lock(fd: int) -> bool:
        """Take the exclusive lock of `fd` if no one holds it; whether it was taken."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True

    def wait_lock(fd: int) -> None:
        """Take the exclusive lock of `fd`, waiting while another process holds it."""
        fcntl.flock(fd, fcntl.LOCK_EX)

    def unlock(fd: int) -> None:
        """Release the lock of `fd`."""
        fcntl.flock(fd, fcntl.LOCK_UN)


__all__ = ["LOCK_SUFFIX", "lock_file_for", "locked_update", "try_lock", "unlock", "wait_lock"]
