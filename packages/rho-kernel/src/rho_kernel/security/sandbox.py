"""The file sandbox: every file a tool opens is reached through the project root.

Tools never open a path themselves; they ask the `SandboxRoot` (`ctx.root`), which walks the
path one component at a time from a directory fd of the root, never letting the kernel follow
a symlink (see `rho_kernel.security.pathwalk`). A symlink met on the way is honoured only when
its target stays inside the root; `..` cannot climb above the root. Because each step is
relative to a directory fd already held, a process that swaps a path (or one of its parent
directories) for a symlink while rho works can make an operation fail but never send it
outside the project.

Opening (what tools use):

- `open_read(path)`: a regular file, opened read-only (FIFOs and devices are refused without
  blocking on them);
- `open_dir(path)`: a directory as a `SandboxDir`, for listing it (`scandir`);
- `write_parent(path, make_parents=…)`: a `WriteTarget`, the directory that will hold the
  file (held open) and the name in it. Write a temporary file there with
  `target.directory.create_file`, then `target.directory.replace(temp, target.name)`; a
  symlink at the name is replaced, never written through.

Checking (for messages and canonical paths; the result is only as good as the moment it was
taken): `validate(path)` for an existing path, `validate_for_write(path)` for a destination
that need not exist yet.

Writes never land in `.git` or `.rho` at any depth (`PROTECTED_NAMES`), nor in a git
directory by another name (a bare repository, or the directory a `.git` file points to,
see `rho_kernel.security.repositories`), whatever the approval: a `ProtectedPathError` is
raised by `write_parent` and `validate_for_write`. The directories `.git` files point to
are found by a walk of the project on the first write, kept until `forget_repositories`
(which `ToolContext.run_process` calls after every process).

Where `os.open` has no `dir_fd` support (Windows), the same calls fall back to canonicalising
the path with `realpath`, checking it and then opening it by path: that leaves a window
between check and use in which a concurrent symlink swap is not caught.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel.home import state_dir as home_state_dir
from rho_kernel.security import errors, pathcheck, pathwalk
from rho_kernel.security.errors import (
    FileTypeError,
    PathNotFoundError,
    ProtectedPathError,
    SandboxError,
)
from rho_kernel.security.handles import CreatedDirs, SandboxDir, WriteTarget
from rho_kernel.security.pathwalk import RootRef, Walk
from rho_kernel.security.protected import PROTECTED_NAMES, protected_name
from rho_kernel.security.regular_file import file_kind
from rho_kernel.security.repositories import find_repositories
from rho_kernel.security.state_fence import StateFence, state_dir_message

if TYPE_CHECKING:
    from rho_kernel.security.editor_files import EditorFiles

#: The longest path accepted, in bytes (PATH_MAX on Linux).
MAX_PATH_BYTES = 4096

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class SandboxRoot:
    """A canonical project directory that file operations cannot escape.

    `path` is the canonical root. Paths given to the methods are relative to it, or absolute
    and inside it. Refusals are `SandboxError`s (`PathNotFoundError`, `FileTypeError`,
    `ProtectedPathError` among them); a failure of the file system itself (permission
    denied on the file, a directory that cannot be created) is an `OSError`.
    """

    def __init__(
        self, root: str | Path, *, state_dir: Path | None = None, own_folder: bool = False
    ) -> None:
        """Canonicalise `root`; it must exist and be a directory (else `SandboxError`).

        `state_dir` is rho's state directory (default: `~/.rho` of `$HOME`): a root inside
        it is refused unless it is a folder of rho's own there (`own_folder`, such as a user
        extension's folder), and no path below the root may lead into the state directory.
        """
        raw = str(root)
        if not raw or "\0" in raw:
            raise SandboxError(f"invalid sandbox root {raw!r}")
        try:
            canonical = Path(os.path.realpath(raw, strict=True))
        except (OSError, RuntimeError) as exc:
            raise SandboxError(f"sandbox root '{raw}' cannot be used: {_reason(exc)}") from None
        if not canonical.is_dir():
            raise SandboxError(f"sandbox root '{raw}' is not a directory")
        self.fence = StateFence(state_dir if state_dir is not None else home_state_dir())
        if not own_folder and self.fence.encloses(canonical):
            raise SandboxError(root_in_state_dir(canonical, self.fence.path), root=canonical)
        self.path: Path = canonical
        self._ref: RootRef | None = None
        self._guarded: frozenset[tuple[int, int]] | None = None
        #: The editor this root's text files are read and written through, after every
        #: check (see `rho_kernel.security.editor_files`); a front end whose client holds
        #: the files sets it. None: the disk.
        self.editor: EditorFiles | None = None
        if pathwalk.DIR_FD_SUPPORTED:
            try:
                fd = os.open(canonical, pathwalk.DIR_FLAGS)
            except OSError as exc:
                raise SandboxError(f"sandbox root '{raw}' cannot be used: {_reason(exc)}") from None
            weakref.finalize(self, os.close, fd)
            self._ref = RootRef(canonical, fd, pathwalk.identity_of(fd), self.fence)

    def __repr__(self) -> str:
        return f"SandboxRoot({str(self.path)!r})"

    # ── opening ─────────────────────────────────────────────────────────────

    def open_read(self, path: str | Path) -> io.BufferedReader:
        """The regular file at `path`, open for reading in binary mode (close it).

        Its `name` is the canonical path. A directory, FIFO, socket or device raises
        `FileTypeError` (without blocking on a FIFO); a missing file `PathNotFoundError`.
        With an `editor`, a text file reads as the editor holds it.
        """
        handle = self._open_read(path)
        if self.editor is None:
            return handle
        from rho_kernel.security.editor_files import read_through

        return read_through(self.editor, handle)  # type: ignore[return-value]

    def _open_read(self, path: str | Path) -> io.BufferedReader:
        raw = self._check_syntax(path)
        if self._ref is None:
            return self._fallback_open_read(raw)
        with self._walk(raw) as walk:
            pending = walk.start()
            while True:
                name = walk.run(pending)
                if name is None:
                    raise errors.wrong_type(raw, self.path, "directory", "file")
                try:
                    fd = os.open(name, _READ_FLAGS, dir_fd=walk.fd)
                except FileNotFoundError:
                    raise errors.not_found(raw, self.path) from None
                except OSError as exc:
                    if exc.errno in pathwalk.LINK_ERRNOS and walk.follow(name, pending):
                        continue
                    raise self._open_failure(walk, name, exc, raw) from None
                return self._regular_file(fd, raw, walk.path(name))

    def open_dir(self, path: str | Path) -> SandboxDir:
        """The directory at `path`, held open as a `SandboxDir` (close it).

        Anything else raises `FileTypeError`; a missing path `PathNotFoundError`.
        """
        raw = self._check_syntax(path)
        if self._ref is None:
            target = self._fenced(raw, pathcheck.check_existing(self.path, raw))
            if not target.is_dir():
                raise errors.wrong_type(raw, self.path, "file", "directory")
            return SandboxDir(target, None)
        with self._walk(raw) as walk:
            pending = walk.start()
            while True:
                name = walk.run(pending)
                if name is None:
                    return SandboxDir(walk.path(), os.dup(walk.fd))
                info = self._lstat(walk, name)
                if info is None:
                    raise errors.not_found(raw, self.path)
                if stat.S_ISLNK(info.st_mode) and walk.follow(name, pending):
                    continue
                if not stat.S_ISDIR(info.st_mode):
                    kind = file_kind(info.st_mode)
                    raise errors.wrong_type(raw, self.path, kind, "directory")
                walk.descend(name, pending)

    def write_parent(self, path: str | Path, *, make_parents: bool = False) -> WriteTarget:
        """The directory that will hold the file `path` (held open) and the name in it.

        A symlink as the last component is followed while its target stays inside the root,
        so the target is what gets replaced. Missing parent directories are created with
        `make_parents` (and removed again if the `with` block fails); otherwise a missing
        parent is a `PathNotFoundError`. An existing directory at `path` is a
        `FileTypeError`; a path through `.git` or `.rho` a `ProtectedPathError`. A directory
        that cannot be created raises `OSError` (its `filename` is the directory's name),
        a parent that is a file `NotADirectoryError`.
        """
        raw = self._check_syntax(path)
        if self._ref is None:
            return self._fallback_write_parent(raw, make_parents)
        walk = self._walk(raw, create=make_parents, protect=True)
        try:
            name = self._last_entry(walk, raw)
            assert name is not None  # a directory was refused
            target_path = walk.path(name)
            directory = SandboxDir(walk.path(), os.dup(walk.fd))
        except BaseException:
            walk.remove_created()
            raise
        finally:
            base, chains = walk.take_created()
            walk.close()
        created = CreatedDirs(_created_paths(target_path, chains), base_fd=base, chains=chains)
        target = WriteTarget(directory, name, target_path, created)
        target.editor = self.editor
        return target

    # ── checking ────────────────────────────────────────────────────────────

    def validate(self, path: str | Path) -> Path:
        """The canonical form of an existing `path` inside the sandbox.

        Relative paths are relative to the root; absolute paths are allowed when they resolve
        inside it. The root itself is allowed. Raises `PathNotFoundError` for a missing path
        that would be inside the sandbox and `SandboxError` for everything else (escapes via
        `..`, absolute paths or symlinks, symlink loops, empty paths, NUL bytes).
        """
        raw = self._check_syntax(path)
        if self._ref is None:
            return self._fenced(raw, pathcheck.check_existing(self.path, raw))
        with self._walk(raw) as walk:
            pending = walk.start()
            while True:
                name = walk.run(pending)
                if name is None:
                    return walk.path()
                info = self._lstat(walk, name)
                if info is None:
                    raise errors.not_found(raw, self.path)
                if stat.S_ISLNK(info.st_mode) and walk.follow(name, pending):
                    continue
                walk.check_fenced(info)
                return walk.path(name)

    def validate_for_write(self, path: str | Path) -> Path:
        """The canonical destination for writing `path`, which need not exist yet.

        Existing components are resolved like `validate`; missing ones (and any below a
        file) are appended as given, and a `..` among them is refused, as is a result outside
        the root or inside `.git`/`.rho` (`ProtectedPathError`).
        """
        raw = self._check_syntax(path)
        if self._ref is None:
            return self._fenced(raw, pathcheck.check_for_write(self.path, raw))
        with self._walk(raw, virtual=True, protect=True) as walk:
            name = self._last_entry(walk, raw, directory_ok=True)
            return walk.path(name)

    def relative(self, path: Path) -> str:
        """`path` relative to the root with `/` separators ("." for the root itself).

        A path outside the root is returned unchanged (absolute, `/` separators).
        """
        try:
            rel = Path(path).relative_to(self.path)
        except ValueError:
            return Path(path).as_posix()
        text = rel.as_posix()
        return text if text else "."

    def contains(self, path: Path) -> bool:
        """Whether the (already canonical) `path` is the root or lies below it."""
        return path.is_relative_to(self.path)

    # ── internals ───────────────────────────────────────────────────────────

    def forget_repositories(self) -> None:
        """Find the project's git directories again before the next write (something other
        than the file tools, a command say, may have made or moved a `.git` file)."""
        self._guarded = None

    def _guarded_directories(self) -> frozenset[tuple[int, int]]:
        guarded = self._guarded
        if guarded is None:
            guarded = self._guarded = find_repositories(self.path).directory_identities()
        return guarded

    def _walk(
        self, raw: str, *, create: bool = False, virtual: bool = False, protect: bool = False
    ) -> Walk:
        assert self._ref is not None
        guarded = self._guarded_directories() if protect else frozenset()
        return Walk(
            self._ref, raw, create=create, virtual=virtual, protect=protect, guarded=guarded
        )

    def _last_entry(self, walk: Walk, raw: str, *, directory_ok: bool = False) -> str | None:
        """Walk to the entry a write would replace, following in-root links at the end."""
        pending = walk.start()
        while True:
            name = walk.run(pending)
            if name is None or walk.missing:
                if name is None and not directory_ok:
                    raise errors.wrong_type(raw, self.path, "directory", "file")
                return name
            info = self._lstat(walk, name)
            if info is None:
                return name
            if stat.S_ISLNK(info.st_mode) and walk.follow(name, pending):
                continue
            if stat.S_ISDIR(info.st_mode) and not directory_ok:
                raise errors.wrong_type(raw, self.path, "directory", "file")
            return name

    @staticmethod
    def _lstat(walk: Walk, name: str) -> os.stat_result | None:
        """`lstat` of `name` in the walk's directory; None if it does not exist."""
        try:
            return os.stat(name, dir_fd=walk.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise walk.failure(exc) from None

    def _regular_file(self, fd: int, raw: str, canonical: Path) -> io.BufferedReader:
        """Wrap `fd` if it is a regular file; otherwise close it and raise `FileTypeError`."""
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = file_kind(info.st_mode)
                raise errors.wrong_type(raw, self.path, kind, "regular file")
            if _READ_FLAGS & getattr(os, "O_NONBLOCK", 0):
                os.set_blocking(fd, True)  # O_NONBLOCK only kept the open from waiting
            raw_file = io.FileIO(fd, "rb", closefd=True)
        except BaseException:
            os.close(fd)
            raise
        raw_file.name = str(canonical)  # as open(path) would name it
        return io.BufferedReader(raw_file)

    def _open_failure(self, walk: Walk, name: str, exc: OSError, raw: str) -> BaseException:
        if exc.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
            info = self._lstat(walk, name)
            kind = "special file" if info is None else file_kind(info.st_mode)
            return errors.wrong_type(raw, self.path, kind, "regular file")
        if exc.errno in (errno.ENAMETOOLONG, *pathwalk.LINK_ERRNOS):
            return walk.failure(exc)
        return exc

    def _fallback_open_read(self, raw: str) -> io.BufferedReader:
        target = self._fenced(raw, pathcheck.check_existing(self.path, raw))
        try:
            fd = os.open(target, _READ_FLAGS)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            kind = file_kind(os.lstat(target).st_mode)
            raise errors.wrong_type(raw, self.path, kind, "regular file") from None
        return self._regular_file(fd, raw, target)

    def _fallback_write_parent(self, raw: str, make_parents: bool) -> WriteTarget:
        target = self._fenced(raw, pathcheck.check_for_write(self.path, raw))
        if target.is_dir():
            raise errors.wrong_type(raw, self.path, "directory", "file")
        if os.path.lexists(target.parent) and not target.parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), target.parent.name)
        missing: list[Path] = []
        current = target.parent
        while not os.path.lexists(current) and current != current.parent:
            missing.append(current)
            current = current.parent
        if missing and not make_parents:
            raise errors.not_found(raw, self.path)
        created = CreatedDirs(())
        made: list[Path] = []
        try:
            for directory in reversed(missing):
                try:
                    directory.mkdir()
                except NotADirectoryError:
                    raise
                except OSError as exc:
                    raise OSError(exc.errno, exc.strerror, directory.name) from None
                made.append(directory)
        except BaseException:
            CreatedDirs(tuple(made)).remove()
            raise
        created = CreatedDirs(tuple(made))
        return WriteTarget(SandboxDir(target.parent, None), target.name, target, created)

    def _fenced(self, raw: str, target: Path) -> Path:
        """`target` (checked by path, without directory fds), unless it is in rho's state
        directory: the nearest existing directory at or above it is compared by identity."""
        existing = target
        while not existing.is_dir() and existing != existing.parent:
            existing = existing.parent
        if self.fence.encloses(existing):
            message = state_dir_message(errors.shown(raw), self.fence.path)
            raise SandboxError(message, path=raw, root=self.path)
        return target

    def _check_syntax(self, path: str | Path) -> str:
        raw = os.fspath(path)
        if not isinstance(raw, str):
            raise SandboxError("path must be text", root=self.path)
        if not raw.strip():
            raise SandboxError(
                f"path is empty (project sandbox: {self.path})", path=raw, root=self.path
            )
        if "\0" in raw:
            raise SandboxError(
                f"path {errors.shown(raw)!r} contains a NUL byte (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            )
        try:
            size = len(os.fsencode(raw))
        except UnicodeEncodeError:
            raise SandboxError(
                f"path {errors.shown(raw)!r} holds characters no file name can contain "
                f"(project sandbox: {self.path})",
                path=raw,
                root=self.path,
            ) from None
        if size > MAX_PATH_BYTES:
            raise SandboxError(
                f"path '{errors.shown(raw)}' is too long ({size} bytes; at most "
                f"{MAX_PATH_BYTES}) (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            )
        for name in raw.split("/"):
            if len(os.fsencode(name)) > pathwalk.MAX_NAME_BYTES:
                raise errors.name_too_long(raw, self.path, name, pathwalk.MAX_NAME_BYTES)
        return raw


def root_in_state_dir(root: Path, state: Path) -> str:
    """Why `root`, which is rho's state directory `state` or lies inside it, is no root."""
    where = (
        "is rho's own state directory"
        if root == state
        else f"is inside rho's own state directory ({state})"
    )
    return (
        f"{root} {where}, which holds rho's settings and every project's sessions; it is "
        "never a project root: start rho in a project directory, or pass --root"
    )


def _created_paths(target: Path, chains: list[tuple[str, ...]]) -> tuple[Path, ...]:
    """The canonical paths of the directories a walk created on the way to `target`."""
    if not chains:
        return ()
    depth = len(chains[-1])  # the deepest new directory is the target's parent
    base = target.parents[depth]
    return tuple(base.joinpath(*chain) for chain in chains)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    if isinstance(exc, RuntimeError):
        return "symlink loop"
    return str(exc) or type(exc).__name__


__all__ = [
    "PROTECTED_NAMES",
    "FileTypeError",
    "PathNotFoundError",
    "ProtectedPathError",
    "SandboxDir",
    "SandboxError",
    "SandboxRoot",
    "WriteTarget",
    "protected_name",
]
