"""What a snapshot left out though it was there: files over the size limit and untracked
nested repositories (`dir/`). They are named in the snapshot commit's message, one
`left-out: "PATH"` line each (the path as a JSON string), so that a restore to it can tell a
file that was not there from one rho could not record: the first is deleted, the second
never is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from rho_checkpoints.gitcmd import GitRunner

#: The start of each line naming a path left out.
PREFIX = "left-out: "


def message(label: str, left_out: Iterable[str]) -> bytes:
    """The commit message of a snapshot labelled `label` that left out `left_out`."""
    lines = [f"{PREFIX}{json.dumps(path)}" for path in sorted(left_out)]
    return "\n".join([label, "", *lines] if lines else [label]).encode() + b"\n"


def left_out_of(git: GitRunner, commit: str) -> frozenset[str]:
    """The paths snapshot `commit` left out though they were there (none for a snapshot
    of an older rho, which did not say)."""
    raw = git.run(["cat-file", "commit", commit]).decode("utf-8", "replace")
    _, _, body = raw.partition("\n\n")
    found = set()
    for line in body.splitlines():
        if line.startswith(PREFIX):
            try:
                path = json.loads(line[len(PREFIX) :])
            except ValueError:
                continue
            if isinstance(path, str):
                found.add(path)
    return frozenset(found)


def covers(left_out: frozenset[str], path: str) -> str | None:
    """The entry of `left_out` that `path` is or lies in (a nested repository `dir/`), or
    None."""
    if path in left_out:
        return path
    parts = path.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth]) + "/"
        if folder in left_out:
            return folder
    return None


__all__ = ["PREFIX", "covers", "left_out_of", "message"]
