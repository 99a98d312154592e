"""One writer per session file.

An open session holds an exclusive OS lock on a sidecar file `<session>.jsonl.lock`, which
also records the owner's pid so that a second rho can say who has the session. The lock is
`flock` on Linux and macOS and `msvcrt.locking` on Windows (`rho_kernel.security.file_lock`,
which locks a byte far past the pid there, so a second process can still read who holds it):
it is released when the session is closed and dies with the process, so a lock file left
behind by a killed rho blocks nobody. It is taken once per open session, never per append.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from rho_kernel.security.file_lock import try_lock as _lock
from rho_kernel.security.file_lock import unlock as _unlock
from rho_kernel.session.entries import SessionError
from rho_kernel.session.private import open_private_file

LOCK_SUFFIX = ".lock"
_MAX_LOCK_FILE = 32  # bytes: a pid and a newline
_ATTEMPTS = 8


class SessionLocked(SessionError):
    """Another process has the session open; `pid` is its process id when known."""

    def __init__(self, session_path: Path, pid: int | None) -> None:
        self.session_path = session_path
        self.pid = pid
        owner = "another rho process" + (f" (pid {pid})" if pid is not None else "")
        super().__init__(
            f"session {session_path} is open in {owner}; close it there first, "
            "or start a new session (rho without -c or --session)"
        )


def lock_path_for(session_path: Path) -> Path:
    """The sidecar lock file of a session file: `<name>.lock` next to it."""
    return session_path.with_name(session_path.name + LOCK_SUFFIX)


class SessionLock:
    """An exclusive lock on one session file, held until `release` or process exit."""

    def __init__(self, path: Path, fd: int) -> None:
        """Internal: use `SessionLock.acquire`."""
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, session_path: Path) -> SessionLock:
        """Lock `session_path` for this process without waiting.

        Raises SessionLocked when another process holds it, SessionError when the lock file
        cannot be used (it cannot be created, or it exists and is not a rho lock file).
        """
        path = lock_path_for(session_path)
        for _ in range(_ATTEMPTS):
            try:
                fd = open_private_file(path, os.O_RDWR)
            except OSError as error:
                raise SessionError(f"cannot lock session {session_path}: {error}") from error
            try:
                lock = cls._try(session_path, path, fd)
            except OSError as error:
                os.close(fd)
                raise SessionError(f"cannot lock session {session_path}: {error}") from error
            except BaseException:
                os.close(fd)
                raise
            if lock is not None:
                return lock
            os.close(fd)  # its previous owner removed that file: lock the new one
        raise SessionError(f"cannot lock session {session_path}: {path} keeps changing")

    @classmethod
    def _try(cls, session_path: Path, path: Path, fd: int) -> SessionLock | None:
        content = _read(fd).strip()
        if len(content) > _MAX_LOCK_FILE or (content and not content.isdigit()):
            raise SessionError(
                f"cannot lock session {session_path}: {path} exists and is not a rho lock file"
            )
        if not _lock(fd):
            raise SessionLocked(session_path, _pid_in(_read(fd)))
        if not _is_current(path, fd):
            _unlock(fd)
            return None
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        return cls(path, fd)

    @property
    def held(self) -> bool:
        """Whether this lock is still held."""
        return self._fd is not None

    def release(self) -> None:
        """Release the lock and remove the lock file; later calls do nothing."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if sys.platform == "win32":
            with contextlib.suppress(OSError):
                _unlock(fd)
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(self.path)  # fails harmlessly when another rho has it open
            return
        # Remove the file while still holding it: whoever opened it meanwhile sees on
        # locking that it is no longer the current lock file and starts over.
        with contextlib.suppress(OSError):
            if _is_current(self.path, fd):
                os.unlink(self.path)
        os.close(fd)

    def __del__(self) -> None:
        # A session dropped without `close` must not keep its file locked until exit. At
        # interpreter exit this may run after module globals are gone: stay silent then.
        try:  # noqa: SIM105 (no module global may be needed here)
            self.release()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<SessionLock {self.path} ({'held' if self.held else 'released'})>"


def _read(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, _MAX_LOCK_FILE + 1)


def _pid_in(content: bytes) -> int | None:
    text = content.strip()
    return int(text) if text.isdigit() and len(text) < 16 else None


def _is_current(path: Path, fd: int) -> bool:
    """Whether `fd` is still the file at `path` (not removed or replaced since it was opened)."""
    try:
        on_disk = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


__all__ = ["LOCK_SUFFIX", "SessionLock", "SessionLocked", "lock_path_for"]
