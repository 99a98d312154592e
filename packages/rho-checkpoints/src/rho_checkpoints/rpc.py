"""`diffCheckpoint` and `restoreFiles`, added through `rho_register_rpc_methods`."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rho_checkpoints.actions import (
    CHECKPOINT_ERROR,
    CheckpointRequestError,
    open_store,
    recorder,
    restore_files,
    snapshot_at,
)
from rho_checkpoints.plugin import METHODS
from rho_kernel import RpcError, RpcMethod, Runtime
from rho_kernel.rpc import INVALID_PARAMS, declared_methods

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
        None,
        description="Only these files or folders (relative to the root, or absolute inside "
        "it; no '..', nothing beyond a symbolic link); all by default.",
    )
    force: bool = Field(
        False,
        description="Restore over files someone else changed since (never over a file rho "
        "could not record).",
    )
    undo: bool = Field(
        False, description="Return to the files as they were before the last restore."
    )


class RestoreFilesResult(_Model):
    """What the restore did."""

    restored: list[FileChange] = Field(description="The files it changed back.")
    conflicts: list[str] = Field(
        description="Files the restore would have overwritten or deleted: changed since rho "
        "last recorded them (send `force` to restore over them), or files rho could not "
        "record (too large, ignored, not a file), which no restore overwrites or deletes. "
        "Nothing was changed."
    )
    reasons: dict[str, str] = Field(
        default_factory=dict, description="Why each of `conflicts` is one, by path."
    )


def _rpc_error(exc: CheckpointRequestError) -> RpcError:
    if exc.bad_params:
        return RpcError(INVALID_PARAMS, f"Invalid params: {exc}")
    return RpcError(CHECKPOINT_ERROR, str(exc))


def checkpoint_methods(runtime: Runtime) -> list[RpcMethod]:
    """The methods, bound to `runtime` (as `rho_checkpoints.plugin.METHODS` declares them)."""

    async def diff_checkpoint(params: DiffCheckpointParams) -> DiffCheckpointResult:
        try:
            found = recorder(runtime)
            await open_store(found)
            commit = snapshot_at(runtime, params.entryId)
        except CheckpointRequestError as exc:
            raise _rpc_error(exc) from None
        try:
            files, more = await asyncio.to_thread(_diffs, found, commit, runtime)
        except Exception as exc:
            raise RpcError(CHECKPOINT_ERROR, str(exc)) from None
        return DiffCheckpointResult(files=files, truncated=more)

    async def restore_files_method(params: RestoreFilesParams) -> RestoreFilesResult:
        try:
            done = await restore_files(
                runtime,
                entry_id=params.entryId,
                paths=params.paths,
                force=params.force,
                undo=params.undo,
            )
        except CheckpointRequestError as exc:
            raise _rpc_error(exc) from None
        restored = [FileChange(path=c.path, status=c.status) for c in done.restored]
        return RestoreFilesResult(restored=restored, conflicts=done.conflicts, reasons=done.reasons)

    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "diffCheckpoint": (diff_checkpoint, DiffCheckpointParams, DiffCheckpointResult),
        "restoreFiles": (restore_files_method, RestoreFilesParams, RestoreFilesResult),
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
