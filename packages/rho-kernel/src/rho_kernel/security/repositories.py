"""Finding the repository internals in a project that must stay read-only.

Commands may write the project but never a `.git` (git runs its hooks and config as code,
outside any sandbox) nor a `.rho` (rho's own settings), at any depth. `find_repositories`
walks the project once and returns every such entry, plus:

- the git directory a `.git` *file* points to (`gitdir: …`, as worktrees, submodules and
  `--separate-git-dir` have) when it lies inside the project, or, for the project's own
  `.git`, wherever it lies; and that git directory's `commondir` (a worktree's main `.git`);
- a directory that is a git directory itself (a bare repository: `HEAD`, `objects/` and
  `refs/`, or `HEAD` and `commondir`), which git uses when run inside it.

The walk uses `os.scandir`, never follows a symbolic link (a link named `.git` or `.rho` is
reported, and its target too when it is a directory inside the project), and does not
descend into what it reports. A `.git` file is read without blocking (a FIFO is never
opened for reading) and only its first `MAX_GITDIR_BYTES`.

A directory the walk cannot list (`chmod 000`, another user's) may hold a `.git` it cannot
see, so it is kept read-only as a whole (kind `"unreadable"`): a command can neither write
in it nor make it readable to plant a hook in what it holds.

`Repositories.created_since(earlier)` names the entries that are new or were replaced since
an earlier walk: what a command made that no rule could cover while it ran;
`revealed_since(earlier)` names those of them that lie in a directory the earlier walk could
not list (they may have been there all along).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rho_kernel.security.protected import PROTECTED_NAMES, protected_name

#: The most of a `.git` or `commondir` file that is read (a path is at most 4096 bytes).
MAX_GITDIR_BYTES = 8192
#: What makes a directory a git directory, by the names in it (as git checks).
_GIT_DIR_MARKERS = (("HEAD", "objects", "refs"), ("HEAD", "commondir"))
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

#: The kernel's own file systems, never walked (a project at `/` would otherwise walk every
#: process): nothing there can be a repository, and a confined command gets its own `/dev`
#: and `/proc` and cannot write `/sys`.
KERNEL_FILE_SYSTEMS = frozenset({"/proc", "/sys", "/dev"})

#: (kind, st_dev, st_ino): what an entry was when it was found.
Identity = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class Repositories:
    """What one walk of a project found.

    `entries` maps each `.git`, `.rho` and bare git directory found to what it was;
    `read_only` is every path to keep read-only: the entries and the git directories they
    point to (canonical, existing), in the order found.
    """

    root: Path
    entries: dict[Path, Identity] = field(default_factory=dict)
    read_only: tuple[Path, ...] = ()

    def created_since(self, earlier: Repositories) -> list[Path]:
        """Entries that `earlier` did not have, or that were something else then."""
        return [path for path, ident in self.entries.items() if earlier.entries.get(path) != ident]

    def revealed_since(self, earlier: Repositories) -> list[Path]:
        """The entries of `created_since(earlier)` inside a directory `earlier` could not
        list: they may have been there, unseen, before."""
        hidden = [path for path, ident in earlier.entries.items() if ident[0] == "unreadable"]
        return [
            path
            for path in self.created_since(earlier)
            if any(folder in path.parents for folder in hidden)
        ]

    def directory_identities(self) -> frozenset[tuple[int, int]]:
        """`(st_dev, st_ino)` of every read-only directory (for checks by identity)."""
        found = set()
        for path in self.read_only:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                found.add((info.st_dev, info.st_ino))
        return frozenset(found)


def is_git_directory(names: Iterable[str]) -> bool:
    """Whether a directory holding `names` is a git directory (bare, or a worktree's)."""
    present = set(names)
    return any(all(marker in present for marker in markers) for markers in _GIT_DIR_MARKERS)


def read_pointer(path: str | Path, name: str = "gitdir: ") -> list[str]:
    """The paths a `.git` file (`gitdir: …`) or a `commondir` file (`name=""`) names.

    Read without following a link, without blocking, only when it is a regular file, and at
    most `MAX_GITDIR_BYTES`: empty when it is anything else or says nothing. Git takes the
    whole file without its trailing line ends; a file padded past the limit gives its first
    line instead, so both spellings are returned when they differ."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.read(fd, MAX_GITDIR_BYTES)
    except OSError:
        return []
    finally:
        os.close(fd)
    text = os.fsdecode(data)
    if not text.startswith(name):
        return []
    body = text[len(name) :]
    candidates = [body.rstrip("\r\n"), body.splitlines()[0] if body else ""]
    return [entry for entry in dict.fromkeys(candidates) if entry and "\0" not in entry]


def find_repositories(root: Path) -> Repositories:
    """Walk `root` (canonical) and find what must stay read-only in it (see the module)."""
    finder = _Finder(root)
    finder.walk()
    return Repositories(root, finder.entries, tuple(dict.fromkeys(finder.read_only)))


class _Finder:
    """One walk's state: a stack of directories, what was found."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: dict[Path, Identity] = {}
        self.read_only: list[Path] = []

    def walk(self) -> None:
        stack = [str(self.root)]
        while stack:
            directory = stack.pop()
            try:
                with os.scandir(directory) as listing:
                    children = list(listing)
            except (FileNotFoundError, NotADirectoryError):
                continue  # removed or replaced while the walk ran
            except OSError:
                if directory != str(self.root):
                    self._found(Path(directory), "unreadable")
                continue
            names = [child.name for child in children]
            if "HEAD" in names and directory != str(self.root) and is_git_directory(names):
                self._found(Path(directory), "git-directory")
                continue
            for child in children:
                first = child.name[0]
                # Only a name starting so can stand for `.git`, `.rho` or `git~1`.
                if (first in ".gG" or not first.isascii()) and _is_protected(child.name):
                    self._protected(child, depth_zero=directory == str(self.root))
                elif child.is_dir(follow_symlinks=False) and child.path not in KERNEL_FILE_SYSTEMS:
                    stack.append(child.path)

    def _found(self, path: Path, kind: str) -> None:
        try:
            info = os.lstat(path)
        except OSError:
            return
        self.entries[path] = (kind, info.st_dev, info.st_ino)
        self.read_only.append(path)

    def _protected(self, entry: os.DirEntry[str], *, depth_zero: bool) -> None:
        path = Path(entry.path)
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return
        kind = _kind(info.st_mode)
        self.entries[path] = (kind, info.st_dev, info.st_ino)
        self.read_only.append(path)
        if kind == "directory":
            return
        real = Path(os.path.realpath(path))
        anywhere = depth_zero  # the project's own .git may point outside the project
        if real != path and not real.is_file():
            self._target(real, anywhere=anywhere)
            return
        if protected_name(entry.name) == ".git" and real.is_file():
            for pointed in read_pointer(real):
                self._gitdir(path.parent / pointed, anywhere=anywhere)

    def _gitdir(self, named: Path, *, anywhere: bool) -> None:
        real = Path(os.path.realpath(named))
        if not self._target(real, anywhere=anywhere):
            return
        for common in read_pointer(real / "commondir", ""):
            self._target(Path(os.path.realpath(real / common)), anywhere=anywhere)

    def _target(self, real: Path, *, anywhere: bool) -> bool:
        """Keep the directory `real` read-only if it may be; whether it was kept. One that
        does not exist yet is remembered, so that a command creating it is reported."""
        inside = self.root in real.parents
        if not (inside or anywhere):
            return False
        try:
            info = os.stat(real)
        except OSError:
            if inside:
                self.entries.setdefault(real, ("missing", 0, 0))
            return False
        if not stat.S_ISDIR(info.st_mode):
            return False
        self.entries.setdefault(real, ("directory", info.st_dev, info.st_ino))
        self.read_only.append(real)
        return True


def _is_protected(name: str) -> bool:
    """`protected_name(name) is not None`, quicker for the plain ASCII names most are."""
    if name.isascii() and ":" not in name and "~" not in name and not name.endswith((".", " ")):
        return name.lower() in PROTECTED_NAMES
    return protected_name(name) is not None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISREG(mode):
        return "file"
    return "special"


__all__ = [
    "KERNEL_FILE_SYSTEMS",
    "MAX_GITDIR_BYTES",
    "Identity",
    "Repositories",
    "find_repositories",
    "is_git_directory",
    "read_pointer",
]
