"""What changed between a snapshot and the files now: `Change`, read from git's
`--name-status -z` output."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

#: How a file differs from the snapshot it is compared with.
ChangeStatus = Literal["added", "modified", "deleted"]

_STATUSES: dict[str, ChangeStatus] = {"A": "added", "M": "modified", "D": "deleted"}


@dataclass(frozen=True, slots=True)
class Change:
    """One file that differs from a snapshot: `path` relative to the project root with `/`
    separators; `status` says whether it was added, modified (content, mode or type) or
    deleted since the snapshot."""

    path: str
    status: ChangeStatus


def parse_name_status(output: bytes) -> list[Change]:
    """The changes listed by `git diff-tree -r -z --name-status --no-renames`, in git's
    order (by path). A type change (`T`) counts as modified."""
    fields = output.split(b"\0")
    changes: list[Change] = []
    for index in range(0, len(fields) - 1, 2):
        letter, path = fields[index].decode(), os.fsdecode(fields[index + 1])
        changes.append(Change(path, _STATUSES.get(letter[:1], "modified")))
    return changes
