"""What a front end asks of the checkpoints: to restore the files to a point of the
conversation (or undo the last restore). rho's JSON-RPC `restoreFiles` and rho acp's
`_rho/restore` both come here."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rho_checkpoints import points
from rho_checkpoints.current import recorder_of

if TYPE_CHECKING:
    from rho_checkpoints.recorder import Recorder, Restored
    from rho_kernel import Runtime


#: The JSON-RPC error code of checkpoints that cannot be used (off, no checkpoint there, a
#: restore to undo missing, git failed).
CHECKPOINT_ERROR = -32022


class CheckpointRequestError(Exception):
    """A request the checkpoints cannot do; `bad_params` when the request itself is wrong
    (an unknown entry, both an entry and `undo`, a path outside the project or beyond a
    link), else the checkpoints cannot (off, no checkpoint there, git failed)."""

    def __init__(self, message: str, *, bad_params: bool = False) -> None:
        super().__init__(message)
        self.bad_params = bad_params


def recorder(runtime: Runtime) -> Recorder:
    """The runtime's recorder; `CheckpointRequestError` when checkpoints are off."""
    found = recorder_of(runtime)
    if found is None:
        raise CheckpointRequestError("checkpoints are off ([checkpoints] enabled = false)")
    return found


async def open_store(found: Recorder) -> None:
    """Open `found`'s store (on a worker thread); `CheckpointRequestError` saying why when
    checkpoints cannot be used here (git is missing, say)."""
    try:
        await asyncio.to_thread(found.store)
    except Exception as exc:  # off, or the store could not be made
        raise CheckpointRequestError(str(exc)) from None


def checked_paths(found: Recorder, paths: list[str] | None) -> list[str] | None:
    """`paths` relative to the project root, each checked (`rho_checkpoints.scope`):
    `CheckpointRequestError` (bad params) naming the first that cannot be restored."""
    if paths is None:
        return None
    from rho_checkpoints.gitcmd import CheckpointError
    from rho_checkpoints.scope import request_path

    root = found.store().root
    try:
        return [request_path(root, path) for path in paths]
    except CheckpointError as exc:
        raise CheckpointRequestError(f"paths: {exc}", bad_params=True) from None


def snapshot_at(runtime: Runtime, entry_id: str) -> str:
    """The snapshot of the files at entry `entry_id`."""
    if entry_id not in runtime.session.entries:
        raise CheckpointRequestError(f"entryId: no entry {entry_id!r}", bad_params=True)
    commit = points.at_entry(runtime.session, entry_id)
    if commit is None:
        raise CheckpointRequestError(f"no checkpoint at or before entry {entry_id!r}")
    return commit


async def restore_files(
    runtime: Runtime,
    *,
    entry_id: str | None = None,
    paths: list[str] | None = None,
    force: bool = False,
    undo: bool = False,
) -> Restored:
    """Return the project's files (all, or those at or under `paths`) to how they were at
    entry `entry_id`, or (`undo`) to how they were just before the last restore; the
    restore is recorded in the session (so it can itself be undone)."""
    found = recorder(runtime)
    session = runtime.session
    if undo == (entry_id is not None):
        raise CheckpointRequestError("give either entryId or undo: true", bad_params=True)
    await open_store(found)
    paths = checked_paths(found, paths)
    target = points.last_before_restore(session) if undo else None
    if entry_id is not None:
        target = snapshot_at(runtime, entry_id)
    if target is None:
        raise CheckpointRequestError("there is no restore to undo")
    baseline, interrupted = points.latest(session), points.interrupted_restore(session)
    try:
        plan = await asyncio.to_thread(
            found.plan_restore, target, paths, baseline, force=force, interrupted=interrupted
        )
        if plan.before is None:  # nothing to do, or conflicts
            return plan
        # In the session before a file is written: a restore cut short can be undone.
        points.record(session, plan.before, "before_restore", restoring=target)
        done = await asyncio.to_thread(found.apply_restore, target, plan, paths)
    except Exception as exc:  # git failed, a path was refused
        raise CheckpointRequestError(str(exc)) from None
    if done.after is not None:
        points.record(session, done.after, "after_restore")
    return done


async def undo_last_turn(runtime: Runtime, *, force: bool = False) -> Restored:
    """Return the project's files to how they were as the session's last prompt started
    (`rho exec --undo`)."""
    await open_store(recorder(runtime))
    entry = points.last_turn_start(runtime.session)
    if entry is None:
        raise CheckpointRequestError("the session has no checkpoint of a prompt to go back to")
    return await restore_files(runtime, entry_id=entry, force=force)


__all__ = [
    "CHECKPOINT_ERROR",
    "CheckpointRequestError",
    "checked_paths",
    "open_store",
    "recorder",
    "restore_files",
    "snapshot_at",
    "undo_last_turn",
]
