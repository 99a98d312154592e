"""What changed between a snapshot and the files now: `Change`, read from git's
`--name-status -z` output, and what a restore to the snapshot does about it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

#: How a file differs from the snapshot it is compared with.
ChangeStatus = Literal["added", "modified", "deleted"]

#: What a restore to the snapshot does to such a file: deletes one added since, writes back
#: one modified since, brings back one deleted since.
RestoreAction = Literal["deleted", "restored", "recreated"]

_STATUSES: dict[str, ChangeStatus] = {"A": "added", "M": "modified", "D": "deleted"}
_UNDONE_BY: dict[ChangeStatus, RestoreAction] = {
    "added": "deleted",
    "modified": "restored",
    "deleted": "recreated",
}


@dataclass(frozen=True, slots=True)
class Change:
    """One file that differs from a snapshot: `path` relative to the project root with `/`
    separators; `status` says whether it was added, modified (content, mode or type) or
    deleted since the snapshot."""

    path: str
    status: ChangeStatus

    @property
    def restore_action(self) -> RestoreAction:
        """What restoring the files to the snapshot does to this one: `deleted` (it was
        added since), `restored` (its content and mode written back: modified since) or
        `recreated` (it was deleted since)."""
        return _UNDONE_BY[self.status]


def parse_name_status(output: bytes) -> list[Change]:
    """The changes listed by `git diff-tree -r -z --name-status --no-renames`, in git's
    order (by path). A type change (`T`) counts as modified."""
    fields = output.split(b"\0")
    changes: list[Change] = []
    for index in range(0, len(fields) - 1, 2):
        letter, path = fields[index].decode(), os.fsdecode(fields[index + 1])
        changes.append(Change(path, _STATUSES.get(letter[:1], "modified")))
    return changes
