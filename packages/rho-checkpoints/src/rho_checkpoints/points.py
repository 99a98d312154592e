"""Checkpoints in the session: each snapshot is a Custom entry of kind `KIND`, appended where
the conversation stood when it was taken — as a prompt starts (`turn_start`), before a tool
call that can change files (`before_call`), as a turn ends (`turn_end`), and around a
restore (`before_restore`, `after_restore`).

The files at an entry are those of the nearest checkpoint at or above it on its branch.
"""

from __future__ import annotations

from typing import Any

from rho_kernel.session import CustomPayload, Session

#: The Custom entry kind of a checkpoint.
KIND = "rho.checkpoint.v1"


def record(
    session: Session,
    commit: str,
    when: str,
    call_id: str | None = None,
    files_changed: int = 0,
    *,
    restoring: str | None = None,
) -> str:
    """Append a checkpoint entry for snapshot `commit` (`files_changed`: how many files
    the turn it ends changed, shown by `getTree` as the entry's mark; `restoring`: the
    snapshot a `before_restore` one is about to restore); its entry id."""
    data: dict[str, Any] = {"commit": commit, "when": when}
    if call_id is not None:
        data["callId"] = call_id
    if restoring is not None:
        data["restoring"] = restoring
    if files_changed:
        data["marks"] = {"filesChanged": files_changed}
    return session.append_custom(KIND, data).id


def _commit_of(payload: object) -> str | None:
    if isinstance(payload, CustomPayload) and payload.kind == KIND:
        data = payload.data
        if isinstance(data, dict) and isinstance(data.get("commit"), str):
            return str(data["commit"])
    return None


def at_entry(session: Session, entry_id: str) -> str | None:
    """The snapshot of the files at entry `entry_id`: its own, or its nearest ancestor's
    (None: no checkpoint at or above it)."""
    entries = session.entries
    current = entries.get(entry_id)
    while current is not None:
        commit = _commit_of(current.payload)
        if commit is not None:
            return commit
        parent = session.tree_parent(current)
        current = entries.get(parent) if parent is not None else None
    return None


def latest(session: Session) -> str | None:
    """The last snapshot on the current branch: the files as rho last recorded them."""
    data = session.read_custom(KIND)
    if isinstance(data, dict) and isinstance(data.get("commit"), str):
        return str(data["commit"])
    return None


def interrupted_restore(session: Session) -> str | None:
    """The snapshot a restore was writing when rho stopped, when the current branch's last
    checkpoint is a `before_restore` with no `after_restore` (None: no such restore)."""
    data = session.read_custom(KIND)
    if isinstance(data, dict) and data.get("when") == "before_restore":
        restoring = data.get("restoring")
        return restoring if isinstance(restoring, str) else None
    return None


def last_turn_start(session: Session) -> str | None:
    """The entry of the checkpoint taken as the current branch's last prompt started."""
    for entry in reversed(session.path_entries()):
        payload = entry.payload
        if isinstance(payload, CustomPayload) and payload.kind == KIND:
            data = payload.data
            if isinstance(data, dict) and data.get("when") == "turn_start":
                return entry.id
    return None


def last_before_restore(session: Session) -> str | None:
    """The snapshot taken just before the latest restore, on any branch (None: none)."""
    for entry in reversed(list(session.entries.values())):
        payload = entry.payload
        if isinstance(payload, CustomPayload) and payload.kind == KIND:
            data = payload.data
            if isinstance(data, dict) and data.get("when") == "before_restore":
                return _commit_of(payload)
    return None


__all__ = [
    "KIND",
    "at_entry",
    "interrupted_restore",
    "last_before_restore",
    "last_turn_start",
    "latest",
    "record",
]
