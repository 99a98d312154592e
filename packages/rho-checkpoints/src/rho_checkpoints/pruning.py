"""Keeping a store within its size: the snapshots of the sessions used longest ago go
first, a whole session at a time, and never the running session's.

Each snapshot's ref names its session (`refs/rho/snapshots/SESSION/COMMIT`); a session's age
is that of its newest snapshot. Once refs are deleted, `git prune` removes the objects no
snapshot reaches any more.
"""

from __future__ import annotations

from collections.abc import Callable

from rho_checkpoints.gitcmd import GitRunner

#: Where snapshot refs live.
SNAPSHOT_REFS = "refs/rho/snapshots/"


def sessions_by_age(git: GitRunner) -> list[tuple[str, list[str]]]:
    """Each session's snapshot refs, the session used longest ago first."""
    listing = git.run(
        ["for-each-ref", "--format=%(committerdate:unix) %(refname)", SNAPSHOT_REFS]
    ).decode()
    newest: dict[str, int] = {}
    refs: dict[str, list[str]] = {}
    for line in listing.splitlines():
        stamp, _, ref = line.partition(" ")
        session = ref.removeprefix(SNAPSHOT_REFS).rpartition("/")[0]
        refs.setdefault(session, []).append(ref)
        newest[session] = max(newest.get(session, 0), int(stamp or 0))
    return sorted(refs.items(), key=lambda item: newest[item[0]])


def prune(git: GitRunner, size: Callable[[], int], max_bytes: int, keep: str) -> int:
    """Delete the snapshots of the sessions used longest ago (never `keep`'s) until the store
    takes at most `max_bytes`; how many snapshots were deleted."""
    if size() <= max_bytes:
        return 0
    deleted = 0
    for session, refs in sessions_by_age(git):
        if session == keep:
            continue
        git.run(["update-ref", "--stdin"], input="".join(f"delete {r}\n" for r in refs).encode())
        git.run(["prune", "--expire=now"])
        deleted += len(refs)
        if size() <= max_bytes:
            break
    return deleted


__all__ = ["SNAPSHOT_REFS", "prune", "sessions_by_age"]
