"""Recording the work tree in the store's index and writing it as a tree.

Design: two git commands, run side by side, list the only paths whose entry in the store's
index can change: `ls-files --others --exclude-standard` (untracked files that are not
ignored) and `diff-files --name-only` (tracked ones whose stat data differs, deleted ones
included; it checks the files' stat data on several threads). Neither hashes a file nor
writes the index. When they list nothing the index already is the work tree: its tree is the
one last written from this very index file, if known, and no command runs. Otherwise only
the listed paths are given to `git add -A`, as literal pathspecs, so git looks at nothing
else (past `NAMED_PATHS_LIMIT` of them, the whole tree with the others excluded: git
matches every path against every pathspec). Those over the size limit are taken out of the
index instead (they may have been small before), so a large file is never read or hashed,
and an untracked nested repository (listed as `dir/`) is left out, so neither it nor its
files are recorded. When a
`.gitignore` is among them, files that it now ignores are taken out of the index too.
`git write-tree` then reuses the index's cached trees.

The index is only a cache of the files' stat data and ids. Every command that writes it
works on a private copy (`GIT_INDEX_FILE`), which replaces the index by a rename when all
went well: a rho killed half-way leaves at most a stray copy, never a lock file that would
stop the next snapshot.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rho_checkpoints.gitcmd import CheckpointError, GitRunner

#: Up to this many changed paths are named to `git add`; past it, it looks at every file.
NAMED_PATHS_LIMIT = 200
#: The prefix of the index copies that commands write (`index.rho-RANDOM`).
COPY_PREFIX = "index.rho-"


@dataclass(frozen=True)
class KnownTree:
    """The tree last written from the index file with this identity (inode, size, mtime)."""

    index: tuple[int, int, int] | None
    tree: str


class TreeRecorder:
    """Records the work tree of `git` (files over `max_file_bytes` left out) as trees."""

    def __init__(self, git: GitRunner, max_file_bytes: int, max_new_files: int) -> None:
        self.git = git
        self.max_file_bytes = max_file_bytes
        self.max_new_files = max_new_files
        #: What the last `record` left out though it is there: files over the size limit
        #: and untracked nested repositories (`dir/`).
        self.left_out: tuple[str, ...] = ()
        self._known: KnownTree | None = None

    def record(self) -> str:
        """Bring the store's index up to date with the work tree and return its tree id.

        Ignored files, `.git` and `.rho` (at any depth), untracked nested repositories and
        files over `max_file_bytes` are left out. Raises `CheckpointError` when more than
        `max_new_files` files are new or changed since the last time (a project or a build
        output far larger than checkpoints are meant for)."""
        candidates = self._candidates()
        if len(candidates) > self.max_new_files:
            raise CheckpointError(
                f"{len(candidates)} files are new or changed, more than [checkpoints] "
                f"max_files ({self.max_new_files}): add the folders that hold them to "
                ".gitignore, or raise max_files"
            )
        known = self._known
        self.left_out = ()  # each large file and nested repository is a candidate every time
        if not candidates and known is not None and known.index == self._index_identity():
            return known.tree
        with self._index_copy() as copy:
            if candidates:
                self._add(candidates, copy)
            tree = self.git.run(["write-tree"], env=copy).decode().strip()
        self._known = KnownTree(self._index_identity(), tree)
        return tree

    def _candidates(self) -> list[str]:
        """The paths that may differ from the index (untracked, or stat data changed)."""
        modified: list[bytes] = []
        failure: list[BaseException] = []

        def list_modified() -> None:
            try:
                modified.append(self.git.run(["diff-files", "--name-only", "-z"]))
            except BaseException as error:  # raised again on the caller's thread
                failure.append(error)

        worker = threading.Thread(target=list_modified, name="rho-checkpoint-diff-files")
        worker.start()
        try:
            others = self.git.run(["ls-files", "-z", "--others", "--exclude-standard"])
        finally:
            worker.join()
        if failure:
            raise failure[0]
        listed = (others + b"\0" + modified[0]).split(b"\0")
        return sorted({os.fsdecode(path) for path in listed if path})

    def _add(self, candidates: list[str], env: dict[str, str]) -> None:
        git = self.git
        large = [path for path in candidates if _over(git.work_tree / path, self.max_file_bytes)]
        nested = [path for path in candidates if path.endswith("/")]
        # A recorded file whose folder became a link or a file, or which is a FIFO now, is
        # gone as such: git would refuse to hear of a path "beyond a symbolic link" or to
        # add a FIFO, so it is taken out by hand.
        beyond = beyond_non_folder(git.work_tree, candidates)
        skip = set(beyond)
        special = [p for p in candidates if p not in skip and _special(git.work_tree / p)]
        gone = beyond + special
        if large or gone:
            _remove_from_index(git, large + gone, env)
        self.left_out = tuple(large + nested)
        left_out = large + nested + gone
        if len(candidates) <= NAMED_PATHS_LIMIT:
            kept = sorted(set(candidates) - set(left_out))
            specs = [f":(literal){path}" for path in kept]
        else:  # git matches each path against each pathspec: many are slower than one walk
            excluded = large + nested + special  # never one beyond a link: git refuses it
            specs = ["."] + [f":(exclude,literal){path}" for path in excluded]
        if specs:
            add = ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"]
            git.run(add, input=_nul(specs), env=env)
        if any(path == ".gitignore" or path.endswith("/.gitignore") for path in candidates):
            ignored = git.run(
                ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], env=env
            )
            paths = [os.fsdecode(path) for path in ignored.split(b"\0") if path]
            if paths:
                _remove_from_index(git, paths, env)

    def _index_path(self) -> Path:
        return self.git.store_dir / "index"

    def _index_identity(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self._index_path())
        except OSError:
            return None
        return info.st_ino, info.st_size, info.st_mtime_ns

    @contextlib.contextmanager
    def _index_copy(self) -> Iterator[dict[str, str]]:
        """A private copy of the index for the block's commands (the environment that points
        git at it), renamed over the index when the block ends without an error."""
        index = self._index_path()
        copy = index.with_name(f"{COPY_PREFIX}{secrets.token_hex(8)}")
        with contextlib.suppress(FileNotFoundError):  # a new store: git starts an empty one
            shutil.copy2(index, copy)
        try:
            yield {"GIT_INDEX_FILE": str(copy)}
            if copy.exists():
                os.replace(copy, index)
        finally:
            copy.unlink(missing_ok=True)


def remove_stray_copies(store_dir: Path) -> None:
    """Delete the index copies a rho that died left behind. Call it holding the store's
    lock: a copy lives only within one operation, which holds the lock, so every copy found
    then is left over (even one of a rho in another PID namespace sharing the store)."""
    for copy in store_dir.glob(COPY_PREFIX + "*"):
        copy.unlink(missing_ok=True)


def beyond_non_folder(root: Path, paths: Iterable[str]) -> list[str]:
    """Those of `paths` (relative to `root`) that some folder on the way to is no longer a
    folder: a symbolic link or a file stands where it was."""
    kinds: dict[str, bool] = {}  # each folder on the way: whether it is a real folder

    def is_folder(folder: str) -> bool:
        if folder not in kinds:
            try:
                kinds[folder] = stat.S_ISDIR(os.lstat(root / folder).st_mode)
            except FileNotFoundError:
                kinds[folder] = True  # gone: git sees the path as deleted, as it is
            except OSError:
                kinds[folder] = False
        return kinds[folder]

    found = []
    for path in paths:
        parts = path.rstrip("/").split("/")[:-1]
        folders = ["/".join(parts[: depth + 1]) for depth in range(len(parts))]
        if not all(is_folder(folder) for folder in folders):
            found.append(path)
    return found


def _special(path: Path) -> bool:
    """Whether something other than a file, a link or a folder (a FIFO, a socket, a
    device) stands at `path`."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode))


def _over(path: Path, limit: int) -> bool:
    try:
        status = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size > limit


def _remove_from_index(git: GitRunner, paths: Iterable[str], env: dict[str, str]) -> None:
    git.run(["update-index", "-z", "--force-remove", "--stdin"], input=_nul(paths), env=env)


def _nul(items: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(item) + b"\0" for item in items)
