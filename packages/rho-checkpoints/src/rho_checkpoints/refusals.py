"""What a restore must not touch: a file rho could not record.

A restore is undoable because rho records the files just before it writes anything; a file
that snapshot cannot hold (over `[checkpoints] max_file_mb`, ignored, inside a nested
repository, a FIFO) could never be brought back. So a restore never overwrites, replaces or
deletes one, `force` or not: each is a conflict with the reason, and the restore changes
nothing. The same holds for a file the target snapshot left out though it was there (too
large then): that it is missing from the snapshot does not mean it was not there, so it is
not deleted.

The decision is made from the changes between the target and the files now as git lists
them (`deleted`: not recorded now), the target's left-out paths, and what stands on the disk
(`lstat`, never following a link).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from rho_checkpoints.changes import Change
from rho_checkpoints.leftout import covers

#: How a thing that is neither a folder, a file nor a link is named.
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


@dataclass(frozen=True)
class Disk:
    """The project on the disk, as the refusals look at it: its root, the size limit, and a
    way to ask git which of some paths its ignore files name."""

    root: Path
    max_file_bytes: int
    ignored: Callable[[list[str]], set[str]]

    def lstat(self, path: str) -> os.stat_result | None:
        try:
            return os.lstat(self.root / path)
        except OSError:
            return None


def refusals(
    disk: Disk, changes: list[Change], selected: Iterable[Change], left_out_then: frozenset[str]
) -> dict[str, str]:
    """Why each of `selected` (some of `changes`, the target's changes to now as git lists
    them) may not be restored, by path; the others are absent."""
    added = {change.path for change in changes if change.status == "added"}
    chosen = list(selected)
    deleting = {change.path for change in chosen if change.status == "added"}
    refused: dict[str, str] = {}
    unrecorded: list[tuple[str, str, str]] = []  # (path, the thing not recorded, the verb)
    for change in chosen:
        if change.status == "added":
            then = covers(left_out_then, change.path)
            if then is not None:
                refused[change.path] = _missing_then(change.path, then, disk)
            continue
        blocker = _blocker(disk, change.path)
        if blocker is None:
            if change.status == "deleted" and _mode(disk, change.path) not in (0, stat.S_IFDIR):
                # There, but not recorded now (not a folder: its files speak for it).
                unrecorded.append((change.path, change.path, "overwritten"))
        elif blocker not in added:
            unrecorded.append((change.path, blocker, "replaced"))
        elif blocker not in deleting:
            refused[change.path] = (
                f"{change.path} lies beyond {blocker}, which is {_kind(disk, blocker)} now: "
                f"restore {blocker} with it"
            )
    reasons = _why_unrecorded(disk, {thing for _, thing, _ in unrecorded})
    for path, thing, verb in unrecorded:
        refused[path] = f"{reasons[thing]}, so it is not {verb}"
    return refused


def _mode(disk: Disk, path: str) -> int:
    """The kind of what stands at `path` (`stat.S_IFMT`), 0 when nothing does."""
    found = disk.lstat(path)
    return stat.S_IFMT(found.st_mode) if found is not None else 0


def _blocker(disk: Disk, path: str) -> str | None:
    """The first folder on the way to `path` that is something else now (a link, a file),
    or None (each is a folder, or missing)."""
    parts = path.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        found = disk.lstat(folder)
        if found is None:
            return None
        if not stat.S_ISDIR(found.st_mode):
            return folder
    return None


def _kind(disk: Disk, path: str) -> str:
    mode = _mode(disk, path)
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a folder"
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def _why_unrecorded(disk: Disk, paths: set[str]) -> dict[str, str]:
    """Why rho could not record what stands at each of `paths` now (git is asked only about
    those that nothing on the disk explains)."""
    reasons = {path: _why(disk, path) for path in paths}
    unexplained = sorted(path for path, reason in reasons.items() if reason is None)
    ignored = disk.ignored(unexplained) if unexplained else set()
    for path in unexplained:
        reasons[path] = (
            f"{path} is ignored (a .gitignore names it): rho does not record it"
            if path in ignored
            else f"{path} appeared after rho recorded the files: rho has no copy of it"
        )
    return {path: str(reason) for path, reason in reasons.items()}


def _why(disk: Disk, path: str) -> str | None:
    """Why rho could not record what stands at `path`, when the disk alone says."""
    found = disk.lstat(path)
    mode = found.st_mode if found is not None else 0
    repository = _repository_of(disk, path)
    if repository is not None:
        return f"{path} is inside the repository {repository}/, which rho does not record"
    if found is not None and stat.S_ISREG(mode) and found.st_size > disk.max_file_bytes:
        return (
            f"{path} is {_size(found.st_size)}, over {_limit(disk.max_file_bytes)}: rho could "
            "not record it"
        )
    if found is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        return f"{path} is {_kind(disk, path)}, not a file: rho could not record it"
    return None


def _missing_then(path: str, then: str, disk: Disk) -> str:
    """Why `path`, missing from the target snapshot, is not deleted: `then` left out."""
    if then.endswith("/"):
        return (
            f"{path} was inside the repository {then} at that point, which rho does not "
            "record: it is not deleted"
        )
    return (
        f"{path} was over {_limit(disk.max_file_bytes)} at that point: rho could not record "
        "it then, so it is not deleted"
    )


def _repository_of(disk: Disk, path: str) -> str | None:
    """The folder on the way to `path` that holds a `.git`, if any."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if os.path.lexists(disk.root / folder / ".git"):
            return folder
    return None


def _size(size: int) -> str:
    """`size` bytes in MiB with one decimal unless it is whole ("11 MiB", "10.5 MiB"), or in
    bytes below a tenth of one."""
    if size < (1 << 20) // 10:
        return f"{size} bytes"
    return f"{size / (1 << 20):.1f}".removesuffix(".0") + " MiB"


def _limit(max_file_bytes: int) -> str:
    """The size limit as the setting that sets it."""
    if max_file_bytes % (1 << 20) == 0:
        return f"[checkpoints] max_file_mb = {max_file_bytes >> 20}"
    return f"the size limit of {_size(max_file_bytes)}"


__all__ = ["Disk", "refusals"]
