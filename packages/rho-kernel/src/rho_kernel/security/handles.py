"""Open handles the sandbox gives out: a directory (`SandboxDir`) and a write target.

A `SandboxDir` holds a directory fd obtained by walking from the root, and every operation
on it names one entry *in* that directory (`os.open(name, dir_fd=…)`, `os.replace(…,
src_dir_fd=…, dst_dir_fd=…)`), so what happens to the path the directory was reached by no
longer matters. On platforms without `dir_fd` support the fd is None and the operations use
the directory's path instead (checked when it was opened, not at each use).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from rho_kernel.security.pathwalk import remove_chains

if TYPE_CHECKING:
    # What `os.scandir` returns: an iterator of entries that is also a context manager.
    from os import _ScandirIterator

    from rho_kernel.security.editor_files import EditorFiles

_CREATE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class SandboxDir:
    """A directory inside the sandbox, held open; its methods act on entries inside it.

    `path` is the directory's canonical path (for messages and display), `fd` the directory
    fd the operations are relative to (None where `dir_fd` is not supported). Entry names
    are single components: no separators, not `.` or `..`. Close it (or use `with`).
    """

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def __repr__(self) -> str:
        return f"SandboxDir({str(self.path)!r})"

    def __enter__(self) -> SandboxDir:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory fd (idempotent)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def lstat(self, name: str) -> os.stat_result:
        """`stat` of the entry `name` itself (a symlink is not followed)."""
        target, kwargs = self._at(name)
        return os.stat(target, follow_symlinks=False, **kwargs)

    def create_file(self, name: str, mode: int = 0o666) -> int:
        """Create `name` exclusively for writing and return its fd (the umask applies).

        Fails with `FileExistsError` if anything, a symlink included, is already there.
        """
        target, kwargs = self._at(name)
        return os.open(target, _CREATE_FLAGS, mode, **kwargs)

    def replace(self, source: str, destination: str) -> None:
        """Rename entry `source` over entry `destination` (a symlink there is replaced)."""
        self._check(source)
        self._check(destination)
        if self.fd is None:
            os.replace(self.path / source, self.path / destination)
        else:
            os.replace(source, destination, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        """Remove the entry `name` (not a directory)."""
        target, kwargs = self._at(name)
        os.unlink(target, **kwargs)

    def scandir(self) -> _ScandirIterator[str]:
        """The entries of the directory (`os.scandir`; close the iterator or use `with`)."""
        if self.fd is None:
            return os.scandir(self.path)
        readable = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=self.fd)
        try:
            return os.scandir(readable)  # works on its own duplicate of the fd
        finally:
            os.close(readable)

    def sync(self) -> None:
        """Flush the directory itself (makes a rename durable); best effort, never raises."""
        with contextlib.suppress(OSError):
            if self.fd is None:
                readable = os.open(self.path, os.O_RDONLY)
            else:
                readable = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=self.fd)
            try:
                os.fsync(readable)
            finally:
                os.close(readable)

    def _at(self, name: str) -> tuple[str, dict[str, int]]:
        self._check(name)
        if self.fd is None:
            return str(self.path / name), {}
        return name, {"dir_fd": self.fd}

    @staticmethod
    def _check(name: str) -> None:
        if name in ("", ".", "..") or "/" in name or "\0" in name or os.sep in name:
            raise ValueError(f"not a single directory entry name: {name!r}")


class CreatedDirs:
    """Directories made on the way to a write target, which can be removed until released.

    With directory fds they are name chains below `base_fd` (the directory the first one was
    made in), removed without following links; otherwise canonical paths.
    """

    def __init__(
        self,
        paths: tuple[Path, ...],
        *,
        base_fd: int | None = None,
        chains: list[tuple[str, ...]] | None = None,
    ) -> None:
        self.paths = paths
        self._base_fd = base_fd
        self._chains = chains or []

    def remove(self) -> None:
        """Remove the directories, deepest first, where they are still empty; then release."""
        if self._base_fd is not None:
            remove_chains(self._base_fd, self._chains)
        else:
            for path in reversed(self.paths):
                with contextlib.suppress(OSError):
                    os.rmdir(path)
        self.release()

    def release(self) -> None:
        """Keep the directories; close the fd held for removing them (idempotent)."""
        if self._base_fd is not None:
            os.close(self._base_fd)
            self._base_fd = None
        self._chains = []
        self.paths = ()


class WriteTarget:
    """Where a write lands: a directory held open (`directory`) and an entry `name` in it.

    `path` is the canonical destination, `created` the directories made on the way there
    (outermost first). Leaving a `with` block on an exception removes those directories
    again (if still empty); the fds are closed either way.
    """

    def __init__(
        self,
        directory: SandboxDir,
        name: str,
        path: Path,
        created: CreatedDirs | None = None,
    ) -> None:
        self.directory = directory
        self.name = name
        self.path = path
        self._created = created or CreatedDirs(())
        self.created: tuple[Path, ...] = self._created.paths
        #: The editor that takes this write (see `rho_kernel.security.editor_files`);
        #: None: the disk.
        self.editor: EditorFiles | None = None

    def __repr__(self) -> str:
        return f"WriteTarget({str(self.path)!r})"

    def __enter__(self) -> WriteTarget:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.remove_created()
        self.close()

    def existing_mode(self) -> int | None:
        """The permission bits of the regular file at the target now, or None."""
        try:
            info = self.directory.lstat(self.name)
        except OSError:
            return None
        return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None

    def remove_created(self) -> None:
        """Remove the directories made for this write, deepest first, if they are empty."""
        self._created.remove()

    def close(self) -> None:
        """Release the fds; the created directories are kept from now on."""
        self._created.release()
        self.directory.close()


__all__ = ["CreatedDirs", "SandboxDir", "WriteTarget"]
