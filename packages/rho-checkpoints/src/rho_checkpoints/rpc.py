"""`diffCheckpoint` and `restoreFiles`, added through `rho_register_rpc_methods`."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rho_checkpoints import points
from rho_checkpoints.plugin import METHODS
from rho_kernel import RpcError, RpcMethod, Runtime
from rho_kernel.rpc import INVALID_PARAMS, declared_methods

#: The error code of checkpoints that cannot be used (off, no git, a store failure).
CHECKPOINT_ERROR = -32022
#: The most files `diffCheckpoint` lists, and the most bytes of each one's diff.
MAX_FILES = 200
MAX_DIFF_BYTES = 16 * 1024


class _Model(BaseModel):
    model_config = ConfigDict(defer_build=True)


class DiffCheckpointParams(_Model):
    """`diffCheckpoint` params."""

    model_config = ConfigDict(extra="forbid")

    entryId: str = Field(description="A session entry (getTree): the point to compare with.")


class FileChange(_Model):
    """A file that differs between a checkpoint and now."""

    path: str = Field(description="Relative to the project root.")
    status: str = Field(description="added, modified or deleted (since the checkpoint).")
    diff: str | None = Field(None, description="The unified diff, redacted and bounded.")


class DiffCheckpointResult(_Model):
    """What differs."""

    files: list[FileChange]
    truncated: bool = Field(description=f"More than {MAX_FILES} files differ.")


class RestoreFilesParams(_Model):
    """`restoreFiles` params: an `entryId` to return to, or `undo`."""

    model_config = ConfigDict(extra="forbid")

    entryId: str | None = Field(None, description="The point to return the files to.")
    paths: list[str] | None = Field(
        None, description="Only these files or folders (relative to the root); all by default."
    )
    force: bool = Field(False, description="Restore over files someone else changed since.")
    undo: bool = Field(
        False, description="Return to the files as they were before the last restore."
    )


class RestoreFilesResult(_Model):
    """What the restore did."""

    restored: list[FileChange] = Field(description="The files it changed back.")
    conflicts: list[str] = Field(
        description="Files changed since rho last recorded them, which it would have "
        "overwritten: nothing was changed; send `force` to restore over them."
    )


def _recorder(runtime: Runtime) -> Any:
    from rho_checkpoints.current import recorder_of

    recorder = recorder_of(runtime)
    if recorder is None:
        raise RpcError(CHECKPOINT_ERROR, "checkpoints are off ([checkpoints] enabled = false)")
    return recorder


def _snapshot_at(runtime: Runtime, entry_id: str) -> str:
    if entry_id not in runtime.session.entries:
        raise RpcError(INVALID_PARAMS, f"Invalid params: entryId: no entry {entry_id!r}")
    commit = points.at_entry(runtime.session, entry_id)
    if commit is None:
        raise RpcError(CHECKPOINT_ERROR, f"no checkpoint at or before entry {entry_id!r}")
    return commit


def _failure(exc: Exception) -> RpcError:
    return RpcError(CHECKPOINT_ERROR, str(exc))


def checkpoint_methods(runtime: Runtime) -> list[RpcMethod]:
    """The methods, bound to `runtime` (as `rho_checkpoints.plugin.METHODS` declares them)."""

    async def diff_checkpoint(params: DiffCheckpointParams) -> DiffCheckpointResult:
        recorder = _recorder(runtime)
        commit = _snapshot_at(runtime, params.entryId)
        try:
            files, more = await asyncio.to_thread(_diffs, recorder, commit, runtime)
        except Exception as exc:
            raise _failure(exc) from None
        return DiffCheckpointResult(files=files, truncated=more)

    async def restore_files(params: RestoreFilesParams) -> RestoreFilesResult:
        recorder = _recorder(runtime)
        session = runtime.session
        if params.undo == (params.entryId is not None):
            raise RpcError(INVALID_PARAMS, "Invalid params: give either entryId or undo: true")
        target = points.last_before_restore(session) if params.undo else None
        if params.entryId is not None:
            target = _snapshot_at(runtime, params.entryId)
        if target is None:
            raise RpcError(CHECKPOINT_ERROR, "there is no restore to undo")
        baseline = points.latest(session)
        try:
            done = await asyncio.to_thread(
                recorder.restore, target, params.paths, baseline, force=params.force
            )
        except Exception as exc:
            raise _failure(exc) from None
        if done.before is not None and done.after is not None:
            points.record(session, done.before, "before_restore")
            points.record(session, done.after, "after_restore")
        restored = [FileChange(path=c.path, status=c.status) for c in done.restored]
        return RestoreFilesResult(restored=restored, conflicts=done.conflicts)

    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "diffCheckpoint": (diff_checkpoint, DiffCheckpointParams, DiffCheckpointResult),
        "restoreFiles": (restore_files, RestoreFilesParams, RestoreFilesResult),
    }
    return declared_methods(METHODS, parts)


def _diffs(recorder: Any, commit: str, runtime: Runtime) -> tuple[list[FileChange], bool]:
    """The files changed since `commit`, each with its redacted, bounded diff."""
    from rho_kernel.security import Redactor

    redactor = Redactor.from_config(runtime.config.redaction)
    store = recorder.store()
    changes = store.changed(commit)
    files = [
        FileChange(
            path=change.path,
            status=change.status,
            diff=redactor.redact(store.diff(commit, change.path, max_bytes=MAX_DIFF_BYTES)),
        )
        for change in changes[:MAX_FILES]
    ]
    return files, len(changes) > MAX_FILES


__all__ = ["CHECKPOINT_ERROR", "checkpoint_methods"]
