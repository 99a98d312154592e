"""`CheckpointStore`: snapshots of a project's files in a private git object store, what
changed since one, and restoring the files to one.

A snapshot is a commit with no parent whose tree is the project's files (ignored files,
`.git`, `.rho`, untracked nested repositories and files over the size limit left out); each
is kept reachable by its own ref, `refs/rho/snapshots/SESSION/COMMIT`, until it is pruned
(`rho_checkpoints.pruning`). A snapshot of files unchanged since the last one of the same
session is that snapshot again. Every operation holds the store's lock
(`rho_checkpoints.lock`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rho_checkpoints.changes import Change, parse_name_status
from rho_checkpoints.gitcmd import CheckpointError, GitRunner
from rho_checkpoints.layout import create_store, store_path
from rho_checkpoints.leftout import left_out_of, message
from rho_checkpoints.lock import store_locked
from rho_checkpoints.packing import pack
from rho_checkpoints.pruning import SNAPSHOT_REFS, prune
from rho_checkpoints.record import TreeRecorder, beyond_non_folder, remove_stray_copies
from rho_checkpoints.refusals import Disk, refusals
from rho_checkpoints.scope import relative_path, request_path
from rho_checkpoints.writeback import blobs_of, delete, write_back

if TYPE_CHECKING:
    from rho_kernel.security import SandboxRoot

#: Files larger than this (in bytes) are left out of snapshots unless the store says otherwise.
MAX_FILE_BYTES = 10 << 20
#: The most files one snapshot records afresh unless the store says otherwise.
MAX_NEW_FILES = 100_000
_IDENTITY = {
    "GIT_AUTHOR_NAME": "rho",
    "GIT_AUTHOR_EMAIL": "rho@localhost",
    "GIT_COMMITTER_NAME": "rho",
    "GIT_COMMITTER_EMAIL": "rho@localhost",
}


@dataclass(frozen=True)
class RestorePlan:
    """What a restore would change (`changes`, as `CheckpointStore.changed` lists them), and
    why it may not make some of those changes (`refused`, by path: none when it may)."""

    changes: list[Change]
    refused: dict[str, str] = field(default_factory=dict)


class CheckpointStore:
    """The checkpoint store of one project; `CheckpointStore.open` makes one."""

    def __init__(
        self,
        root: Path,
        git: GitRunner,
        *,
        max_file_bytes: int,
        max_new_files: int = MAX_NEW_FILES,
        state_dir: Path | None = None,
    ) -> None:
        """A store over `git` for the project at the canonical `root` (see `open`)."""
        self.root = root
        #: rho's state directory (None: the user's), which the sandbox keeps deletes out of.
        self.state_dir = state_dir
        self.git = git
        self.max_file_bytes = max_file_bytes
        self._trees = TreeRecorder(git, max_file_bytes, max_new_files)
        #: Each session's last snapshot: (its tree and what it left out, its commit).
        self._last: dict[str, tuple[tuple[str, tuple[str, ...]], str]] = {}

    @classmethod
    def open(
        cls,
        root: Path,
        state_dir: Path,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_new_files: int = MAX_NEW_FILES,
    ) -> CheckpointStore:
        """The store of the project at `root` under `state_dir/checkpoints/`, created on
        first use; files over `max_file_bytes` are never recorded, and a snapshot that would
        record more than `max_new_files` files afresh fails."""
        root = root.resolve()
        store_dir = store_path(root, state_dir)
        create_store(store_dir, root)
        with store_locked(store_dir):
            remove_stray_copies(store_dir)
        git = GitRunner(store_dir, root)
        return cls(
            root,
            git,
            max_file_bytes=max_file_bytes,
            max_new_files=max_new_files,
            state_dir=state_dir,
        )

    def snapshot(self, label: str, session: str = "none") -> str:
        """Record the project's files now as a snapshot labelled `label`, kept with the
        snapshots of `session` (a session id: see `prune`); its commit id."""
        group = re.sub(r"[^A-Za-z0-9_-]", "_", session)[:64] or "none"
        with store_locked(self.git.store_dir):
            tree = self._trees.record()
            recorded = (tree, self._trees.left_out)
            last = self._last.get(group)
            if last is not None and last[0] == recorded and self._kept(group, last[1]):
                return last[1]
            stamp = f"@{int(time.time())} +0000"
            env = {**_IDENTITY, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
            text = message(label, self._trees.left_out)
            commit = self.git.run(["commit-tree", tree], input=text, env=env)
            commit_id = commit.decode().strip()
            self.git.run(["update-ref", f"{SNAPSHOT_REFS}{group}/{commit_id}", commit_id])
        self._last[group] = (recorded, commit_id)
        return commit_id

    def _kept(self, group: str, commit: str) -> bool:
        """Whether the ref that keeps `commit` is still there (no other process pruned it;
        rho never packs refs, so it is a file)."""
        return (self.git.store_dir / f"{SNAPSHOT_REFS}{group}/{commit}").is_file()

    def prime(self) -> None:
        """Bring the store's index up to date with the files now (what makes a snapshot of
        unchanged files fast), without taking a snapshot."""
        with store_locked(self.git.store_dir):
            self._trees.record()

    def maintain(self) -> bool:
        """Pack the store's objects when enough have gathered (`rho_checkpoints.packing`);
        whether it did."""
        with store_locked(self.git.store_dir):
            return pack(self.git)

    def prune(self, max_bytes: int, keep: str) -> int:
        """Delete the snapshots of the sessions used longest ago (never those of session
        `keep`) until the store takes at most `max_bytes`; how many were deleted."""
        with store_locked(self.git.store_dir):
            return prune(self.git, self.size_bytes, max_bytes, keep)

    def changed(self, since: str) -> list[Change]:
        """The files that differ between snapshot `since` and the project now, by path."""
        with store_locked(self.git.store_dir):
            changes = self._changes(self._commit(since), self._trees.record())
        return [self._as_seen(change) for change in changes]

    def changed_between(self, first: str, second: str) -> list[Change]:
        """The files that differ between snapshots `first` and `second`."""
        if first == second:  # a turn that changed nothing: no command to run
            return []
        return self._changes(self._commit(first), self._commit(second))

    def diff(self, since: str, path: str, *, max_bytes: int = 64 * 1024) -> str:
        """The unified diff of the file at `path` between snapshot `since` and now ("" when
        it is the same); past `max_bytes` it is cut at a line end and ends with the line
        `… diff cut at MAX_BYTES bytes`."""
        spec = ":(literal)" + relative_path(self.root, path)
        args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all"]
        with store_locked(self.git.store_dir):
            tree = self._trees.record()
            output = self.git.run([*args, self._commit(since), tree, "--", spec])
        if len(output) <= max_bytes:
            return output.decode("utf-8", "replace")
        head = output[:max_bytes]
        head = head[: head.rfind(b"\n") + 1]
        return head.decode("utf-8", "replace") + f"… diff cut at {max_bytes} bytes\n"

    def plan(self, to: str, paths: Sequence[str] | None = None) -> RestorePlan:
        """What making the files (all, or those at or under `paths`) as they were in snapshot
        `to` would change, and which of those changes it may not make
        (`rho_checkpoints.refusals`); nothing is written. `CheckpointError` for a path that
        cannot be restored (see `restore`)."""
        chosen = None if paths is None else [request_path(self.root, path) for path in paths]
        with store_locked(self.git.store_dir):
            commit = self._commit(to)
            changes, refused = self._selection(commit, self._trees.record(), chosen)
        return RestorePlan([self._as_seen(change) for change in changes], refused)

    def restore(
        self, to: str, paths: Sequence[str] | None = None, *, only: Collection[str] | None = None
    ) -> list[Change]:
        """Make the project's files (all, or those at or under `paths`; of those, only the
        paths in `only` when given: what a `plan` listed) as they were in snapshot `to`:
        files modified or deleted since are written back with their content and mode, files
        added since are deleted. Returns what differed (as `changed(to)` reported it), which
        is what it undid.

        Raises `CheckpointError` for a path outside the root, inside `.git` or `.rho`, or
        beyond a link or a file that stands where a folder was (`scope.request_path`),
        and, before it writes anything, when a change may not be made: a file rho could not
        record would be overwritten or deleted (`plan` says which, and why). Ignored files,
        untracked nested repositories and files over the size limit are outside every
        snapshot, so they are never touched. Every write and delete goes through the
        kernel's sandbox, which follows no link out of the root."""
        chosen = None if paths is None else [request_path(self.root, path) for path in paths]
        if chosen is not None and not chosen:
            return []
        with store_locked(self.git.store_dir):
            commit = self._commit(to)
            changes, refused = self._selection(commit, self._trees.record(), chosen, only)
            if refused:
                raise CheckpointError("not restored: " + "; ".join(refused.values()))
            seen = [self._as_seen(change) for change in changes]
            sandbox = self._sandbox()
            for change in changes:
                if change.status == "added":
                    self._delete(sandbox, change.path)
            back = [change.path for change in changes if change.status != "added"]
            if back:
                write_back(self.git, sandbox, blobs_of(self.git, commit, back))
        return seen

    def _selection(
        self,
        commit: str,
        tree: str,
        paths: Sequence[str] | None,
        only: Collection[str] | None = None,
    ) -> tuple[list[Change], dict[str, str]]:
        """The changes from `commit` to `tree` at or under `paths` (all: None) and in `only`
        (when given), as git lists them, and why each that may not be made may not
        (`rho_checkpoints.refusals`)."""
        changes = self._changes(commit, tree)
        chosen = [
            change
            for change in changes
            if (paths is None or _under(change.path, paths))
            and (only is None or change.path in only)
        ]
        disk = Disk(self.root, self.max_file_bytes, self._ignored)
        deletes = any(change.status == "added" for change in chosen)
        then = left_out_of(self.git, commit) if deletes else frozenset()  # only deletes ask
        return chosen, refusals(disk, changes, chosen, then)

    def _ignored(self, paths: list[str]) -> set[str]:
        """Those of `paths` that the project's ignore files name."""
        found = self.git.run(
            ["check-ignore", "-z", "--no-index", "--stdin"],
            input=b"".join(os.fsencode(path) + b"\0" for path in paths),
            check=False,
        )
        return {os.fsdecode(path) for path in found.split(b"\0") if path}

    def _sandbox(self) -> SandboxRoot:
        """The project as the kernel's sandbox: restores write and delete through it."""
        from rho_kernel.security import SandboxError, SandboxRoot

        try:
            return SandboxRoot(self.root, state_dir=self.state_dir)
        except SandboxError as exc:
            raise CheckpointError(f"the project cannot be restored: {exc}") from None

    def size_bytes(self) -> int:
        """The store folder's size on disk, in bytes (allocated blocks)."""
        total = 0
        for folder, _, files in os.walk(self.git.store_dir):
            for name in files:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_blocks * 512
                except OSError:
                    continue
        return total

    def _commit(self, snapshot: str) -> str:
        """The full id of the snapshot commit `snapshot`; raises `CheckpointError` when the
        store holds no such commit."""
        if not snapshot or snapshot.startswith("-"):
            raise CheckpointError(f"no snapshot {snapshot!r}")
        found = self.git.run(
            ["rev-parse", "--verify", "--quiet", snapshot + "^{commit}"], check=False
        )
        if not found:
            raise CheckpointError(f"no snapshot {snapshot!r}")
        return found.decode().strip()

    def _changes(self, commit: str, tree: str) -> list[Change]:
        """The changes from `commit` to `tree` as git lists them: a file missing from `tree`
        is `deleted`, though it may be there unrecorded."""
        args = ["diff-tree", "-r", "-z", "--name-status", "--no-renames", "--ignore-submodules=all"]
        return parse_name_status(self.git.run([*args, commit, tree]))

    def _as_seen(self, change: Change) -> Change:
        """A file left out of the snapshot of now but present (grown past the size limit, or
        ignored since) was modified, not deleted; one beyond a link or a file that stands
        where its folder was is deleted (it is not there as such)."""
        if change.status != "deleted" or beyond_non_folder(self.root, [change.path]):
            return change
        if os.path.lexists(self.root / change.path):
            return Change(change.path, "modified")
        return change

    def _delete(self, sandbox: SandboxRoot, path: str) -> None:
        """Delete the file or link at `path` — reached through the sandbox from the root's
        fd, so a folder swapped for a link meanwhile cannot send it outside, and a link is
        deleted itself, never what it points to — and then each folder above it that it
        leaves empty."""
        delete(sandbox, path)
        for folder in (self.root / path).parents:
            if folder == self.root:
                break
            try:
                folder.rmdir()
            except OSError:
                break


def _under(path: str, chosen: Sequence[str]) -> bool:
    """Whether `path` is one of `chosen` or inside one of them ("." holds every path)."""
    return any(c == "." or path == c or path.startswith(c.rstrip("/") + "/") for c in chosen)
