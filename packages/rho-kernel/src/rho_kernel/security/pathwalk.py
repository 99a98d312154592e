"""Walking a path inside the sandbox one component at a time, through directory fds.

Every step is an `*at` call relative to a directory fd already held, and opens with
`O_NOFOLLOW | O_DIRECTORY`, so nothing the kernel resolves on its own can leave the root. A
symlink met on the way is read with `readlink` and its target fed back into the walk, where
the same rules apply: a relative target continues from the link's directory, an absolute one
restarts at the root (or, when it does not name a place inside the root, is refused). `..`
pops the stack of directories walked, so it can never climb above the root, and the number of
links followed is capped (like `ELOOP`). A path swapped for a symlink between two steps can
therefore make a walk fail, but never escape.

At most `_OPEN_FRAMES` directory fds are held at once; a `..` back into a directory whose fd
was let go reopens it from the root by name, again without following links.

This module is POSIX only (`DIR_FD_SUPPORTED`); `SandboxRoot` falls back to path checks
elsewhere.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from rho_kernel.security import errors
from rho_kernel.security.protected import protected_message, protected_name
from rho_kernel.security.repositories import is_git_directory
from rho_kernel.security.state_fence import StateFence, state_dir_message

#: Symlinks followed in one walk before giving up (like `ELOOP`).
MAX_SYMLINK_HOPS = 40
#: The longest file name (one component) accepted, in bytes.
MAX_NAME_BYTES = 255

#: Whether this platform can open relative to a directory fd without following symlinks.
DIR_FD_SUPPORTED: bool = (
    {os.open, os.stat, os.readlink, os.mkdir, os.rmdir, os.rename, os.unlink} <= os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)

#: How directories are opened on the way: never through a symlink, and (where `O_PATH`
#: exists) without needing read permission on them.
DIR_FLAGS: int = (
    getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_PATH", os.O_RDONLY)
)

# What opening a symlink with O_NOFOLLOW reports: ELOOP (Linux, macOS), EMLINK (FreeBSD),
# ENOTDIR (Linux with O_PATH | O_DIRECTORY, which also means "not a directory").
LINK_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR})

_OPEN_FRAMES = 16


def split(text: str) -> list[str]:
    """The components of a `/`-separated path, without empty and `.` components."""
    return [part for part in text.split("/") if part not in ("", ".")]


@dataclass(slots=True)
class RootRef:
    """What a walk needs to know about the root: its canonical path, an fd and its identity,
    and the fence around rho's state directory (no walk enters it)."""

    path: Path
    fd: int
    ident: tuple[int, int]
    fence: StateFence | None = None


@dataclass(slots=True)
class _Frame:
    name: str  # the entry name in the parent frame ("" for the root)
    fd: int | None  # None once let go to bound the open fds


class Walk:
    """One walk from the root; a context manager that closes every fd it opened.

    `create` makes missing directories on the way (recording them in `created`), `virtual`
    lets missing components (and components below a file) pile up in `missing` instead of
    failing, and `protect` refuses any component named like `.git` or `.rho`, and any
    directory that is a git directory (by its contents, or by its identity being in
    `guarded`: the git directories `.git` files point to). Errors are
    `SandboxError`s, except a directory that cannot be created (`OSError` whose `filename`
    is its name) and, with `create`, a parent that is a file (`NotADirectoryError`).
    """

    def __init__(
        self,
        root: RootRef,
        raw: str,
        *,
        create: bool = False,
        virtual: bool = False,
        protect: bool = False,
        guarded: frozenset[tuple[int, int]] = frozenset(),
    ) -> None:
        self._root = root
        self._guarded = guarded
        self._raw = raw
        self._create = create
        self._virtual = virtual
        self._protect = protect
        self._frames = [_Frame("", os.dup(root.fd))]
        self._first_open = 1
        self._hops = 0
        self._created_base: int | None = None  # dup of the fd the first new directory went in
        self._base_depth = 0
        self.missing: list[str] = []
        self.created: list[tuple[str, ...]] = []  # new directories, as names below the base
        self._fenced = root.fence.identities() if root.fence is not None else frozenset()

    # ── lifecycle ───────────────────────────────────────────────────────────

    def __enter__(self) -> Walk:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every fd the walk holds (the record of created directories included)."""
        for frame in self._frames:
            if frame.fd is not None:
                os.close(frame.fd)
                frame.fd = None
        self.discard_created()

    def take_created(self) -> tuple[int | None, list[tuple[str, ...]]]:
        """Hand over the created directories (base fd and name chains); the caller closes."""
        base, created = self._created_base, self.created
        self._created_base, self.created = None, []
        return base, created

    def discard_created(self) -> None:
        """Forget the created directories (they stay on disk)."""
        base, _ = self.take_created()
        if base is not None:
            os.close(base)

    def remove_created(self) -> None:
        """Remove the directories this walk created, deepest first (best effort)."""
        base, created = self.take_created()
        if base is not None:
            remove_chains(base, created)
            os.close(base)

    # ── state ───────────────────────────────────────────────────────────────

    @property
    def fd(self) -> int:
        """The fd of the directory reached so far."""
        fd = self._frames[-1].fd
        assert fd is not None  # the top frame is always open
        return fd

    def path(self, name: str | None = None) -> Path:
        """The canonical path reached so far (plus missing components and `name`)."""
        parts = [frame.name for frame in self._frames[1:]] + self.missing
        if name is not None:
            parts.append(name)
        return self._root.path.joinpath(*parts)

    # ── walking ─────────────────────────────────────────────────────────────

    def start(self) -> deque[str]:
        """The components to walk for the raw path (an absolute one located in the root)."""
        raw = self._raw
        if raw.startswith("/"):
            return deque(self._locate(raw))
        return deque(split(raw))

    def run(self, pending: deque[str]) -> str | None:
        """Walk all but the last component; return the last (None: the path is a directory)."""
        while pending:
            name = pending.popleft()
            if name == "..":
                self._up()
                continue
            self._check_name(name, last=not pending)
            if not pending:
                return name
            self.descend(name, pending)
        return None

    def follow(self, name: str, pending: deque[str]) -> bool:
        """If `name` here is a symlink, queue its target and return True (else False)."""
        try:
            target = os.readlink(name, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):
                return False  # not a symlink (any more)
            raise self.failure(exc) from None
        self._hop()
        if self._created_base is not None:
            # Nothing can be a link below a directory this walk just made, unless someone
            # is racing it.
            raise errors.unresolvable(
                self._raw, self._root.path, "a directory changed while it was being created"
            )
        if not target:
            raise errors.not_found(self._raw, self._root.path)
        if target.startswith("/"):
            self._reset()
            parts = self._locate(target)
        else:
            parts = split(target)
        pending.extendleft(reversed(parts))
        return True

    def check_fenced(self, info: os.stat_result) -> None:
        """Refuse an entry (`lstat` result) that is rho's state directory or one in it."""
        if self._fenced and (info.st_dev, info.st_ino) in self._fenced:
            self.refuse_state_dir()

    def refuse_state_dir(self) -> None:
        """Raise the refusal for a path leading into rho's state directory."""
        fence = self._root.fence
        assert fence is not None
        message = state_dir_message(errors.shown(self._raw), fence.path)
        raise errors.SandboxError(message, path=self._raw, root=self._root.path)

    def failure(self, exc: OSError) -> errors.SandboxError:
        """The `SandboxError` for an OS error met while resolving."""
        if exc.errno == errno.ENAMETOOLONG:
            name = exc.filename if isinstance(exc.filename, str) else ""
            return errors.name_too_long(self._raw, self._root.path, name, MAX_NAME_BYTES)
        if exc.errno == errno.ELOOP:
            return self._too_many_links()
        reason = (exc.strerror or str(exc)).lower()
        return errors.unresolvable(self._raw, self._root.path, reason)

    def _check_name(self, name: str, *, last: bool) -> None:
        if len(os.fsencode(name)) > MAX_NAME_BYTES:
            raise errors.name_too_long(self._raw, self._root.path, name, MAX_NAME_BYTES)
        if self._protect and (protected := protected_name(name)) is not None:
            message = protected_message(errors.shown(self._raw), protected, itself=last)
            raise errors.ProtectedPathError(
                message, protected=protected, path=self._raw, root=self._root.path
            )

    def descend(self, name: str, pending: deque[str]) -> None:
        """Enter directory `name` (following an in-root symlink by queueing its target)."""
        if self.missing:
            self.missing.append(name)
            return
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=self.fd)
        except FileNotFoundError:
            self._absent(name)
            return
        except OSError as exc:
            if exc.errno not in LINK_ERRNOS:
                raise self.failure(exc) from None
            if not self.follow(name, pending):
                self._not_a_directory(name)
            return
        if self._protect:
            self._refuse_git_directory(name, fd)
        self._push(name, fd)

    def _refuse_git_directory(self, name: str, fd: int) -> None:
        """Close `fd` and raise `ProtectedPathError` if it is a git directory."""
        try:
            guarded = identity_of(fd) in self._guarded or _looks_like_git_directory(fd)
        except OSError as exc:
            os.close(fd)
            raise self.failure(exc) from None
        if guarded:
            os.close(fd)
            message = protected_message(
                errors.shown(self._raw),
                ".git",
                itself=False,
                place=str(self.path(name).relative_to(self._root.path)),
            )
            raise errors.ProtectedPathError(
                message, protected=".git", path=self._raw, root=self._root.path
            )

    def _absent(self, name: str) -> None:
        if self._virtual:
            self.missing.append(name)
            return
        if not self._create:
            raise errors.not_found(self._raw, self._root.path)
        try:
            os.mkdir(name, 0o777, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise self.failure(exc) from None
            raise OSError(exc.errno, exc.strerror, name) from None
        if self._created_base is None:
            self._created_base = os.dup(self.fd)
            self._base_depth = len(self._frames)
        below = tuple(frame.name for frame in self._frames[self._base_depth :])
        self.created.append((*below, name))
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=self.fd)
        except OSError as exc:
            raise self.failure(exc) from None
        self._push(name, fd)

    def _not_a_directory(self, name: str) -> None:
        if self._virtual:
            self.missing.append(name)
        elif self._create:
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), name)
        else:
            raise errors.not_found(self._raw, self._root.path)

    def _up(self) -> None:
        if self.missing or self._created_base is not None:
            raise errors.dotdot_below_missing(self._raw, self._root.path)
        if len(self._frames) == 1:
            raise errors.outside(self._raw, self._root.path)
        frame = self._frames.pop()
        if frame.fd is not None:
            os.close(frame.fd)
        if self._first_open >= len(self._frames):
            if len(self._frames) > 1:
                self._reopen_top()
            self._first_open = max(1, len(self._frames) - 1)

    def _push(self, name: str, fd: int) -> None:
        self._frames.append(_Frame(name, fd))
        if self._fenced and identity_of(fd) in self._fenced:
            self.refuse_state_dir()
        if len(self._frames) - self._first_open > _OPEN_FRAMES:
            frame = self._frames[self._first_open]
            if frame.fd is not None:
                os.close(frame.fd)
                frame.fd = None
            self._first_open += 1

    def _reopen_top(self) -> None:
        """Reopen the top frame by walking the frames' names from the root again."""
        names = [frame.name for frame in self._frames[1:]]
        fd = open_chain(self._root.fd, names)
        if fd is None:
            raise errors.unresolvable(
                self._raw, self._root.path, "a directory changed while it was being walked"
            )
        self._frames[-1].fd = fd
        if self._fenced and identity_of(fd) in self._fenced:
            self.refuse_state_dir()

    def _reset(self) -> None:
        """Back to the root (for an absolute symlink target)."""
        while len(self._frames) > 1:
            frame = self._frames.pop()
            if frame.fd is not None:
                os.close(frame.fd)
        self._first_open = 1

    def _hop(self) -> None:
        self._hops += 1
        if self._hops > MAX_SYMLINK_HOPS:
            raise self._too_many_links()

    def _too_many_links(self) -> errors.SandboxError:
        return errors.unresolvable(self._raw, self._root.path, "too many levels of symbolic links")

    # ── absolute paths ──────────────────────────────────────────────────────

    def _locate(self, text: str) -> list[str]:
        """The components of absolute `text` below the root; `SandboxError` if it is outside.

        A path spelled with the canonical root is cut lexically. Any other spelling (through
        a symlink to the project, say) is walked from `/`, following links, until it enters
        the root directory (same device and inode); the rest is then walked in the root.
        """
        parts = split(text)
        root_parts = list(self._root.path.parts[1:])
        if parts[: len(root_parts)] == root_parts:
            return parts[len(root_parts) :]
        rest = self._enter_from_slash(parts)
        if rest is None:
            raise errors.outside(self._raw, self._root.path)
        return rest

    def _enter_from_slash(self, parts: list[str]) -> list[str] | None:
        pending = deque(parts)
        stack = [os.open("/", DIR_FLAGS)]
        try:
            while True:
                if identity_of(stack[-1]) == self._root.ident:
                    return list(pending)
                if not pending:
                    return None
                if not self._step_outside(stack, pending):
                    return None
        finally:
            for fd in stack:
                os.close(fd)

    def _step_outside(self, stack: list[int], pending: deque[str]) -> bool:
        """One component of a walk outside the root; False when it cannot go on."""
        name = pending.popleft()
        if name == "..":
            if len(stack) > 1:
                os.close(stack.pop())
            return True
        try:
            stack.append(os.open(name, DIR_FLAGS, dir_fd=stack[-1]))
            return True
        except OSError as exc:
            if exc.errno not in LINK_ERRNOS:
                return False
        try:
            target = os.readlink(name, dir_fd=stack[-1])
        except OSError:
            return False
        self._hop()
        if target.startswith("/"):
            while len(stack) > 1:
                os.close(stack.pop())
        pending.extendleft(reversed(split(target)))
        return True


def _looks_like_git_directory(fd: int) -> bool:
    """Whether the directory `fd` holds what makes git take it for a git directory."""
    try:
        os.stat("HEAD", dir_fd=fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    names = [n for n in ("objects", "refs", "commondir") if _exists(n, fd)]
    return is_git_directory(["HEAD", *names])


def _exists(name: str, fd: int) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def identity_of(fd: int) -> tuple[int, int]:
    """`(st_dev, st_ino)` of an open fd: what makes two paths the same directory."""
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def open_chain(base: int, names: list[str] | tuple[str, ...]) -> int | None:
    """Open the directory `base/names…` without following links; None if that fails."""
    fd = os.dup(base)
    for name in names:
        try:
            child = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = child
    return fd


def remove_chains(base: int, created: list[tuple[str, ...]]) -> None:
    """Remove the (empty) directories `base/chain…`, deepest first; errors are ignored."""
    for chain in reversed(created):
        parent = open_chain(base, chain[:-1])
        if parent is None:
            continue
        try:
            os.rmdir(chain[-1], dir_fd=parent)
        except OSError:
            pass
        finally:
            os.close(parent)


__all__ = [
    "DIR_FD_SUPPORTED",
    "DIR_FLAGS",
    "LINK_ERRNOS",
    "MAX_NAME_BYTES",
    "MAX_SYMLINK_HOPS",
    "RootRef",
    "Walk",
    "identity_of",
    "open_chain",
    "remove_chains",
    "split",
]
