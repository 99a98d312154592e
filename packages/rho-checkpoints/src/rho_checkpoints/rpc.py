"""`diffCheckpoint` and `restoreFiles`, added through `rho_register_rpc_methods`."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

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
#: The largest version of a file whose diff is redacted with the whole file's context, and
#: the most bytes of such versions one request reads (past them a diff's lines are redacted
#: alone: a key's line is still found by its shape and by the keys rho has learned).
MAX_CONTEXT_BYTES = 1 << 20
MAX_CONTEXT_TOTAL = 32 << 20


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


class RestoredFile(_Model):
    """A file the restore changed back: what it had become since the point (`status`), and
    what the restore did about it (`action`)."""

    path: str = Field(description="Relative to the project root.")
    status: str = Field(
        description="added, modified or deleted since the point restored to (what the "
        "restore undid)."
    )
    action: Literal["deleted", "restored", "recreated"] = Field(
        description="What the restore did to the file: deleted it (it was added since), "
        "restored its content and mode (modified since), or recreated it (deleted since)."
    )


class RestoreFilesResult(_Model):
    """What the restore did."""

    restored: list[RestoredFile] = Field(description="The files it changed back.")
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
        restored = [
            RestoredFile(path=c.path, status=c.status, action=c.restore_action)
            for c in done.restored
        ]
        return RestoreFilesResult(restored=restored, conflicts=done.conflicts, reasons=done.reasons)

    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "diffCheckpoint": (diff_checkpoint, DiffCheckpointParams, DiffCheckpointResult),
        "restoreFiles": (restore_files_method, RestoreFilesParams, RestoreFilesResult),
    }
    return declared_methods(METHODS, parts)


def _diffs(recorder: Any, commit: str, runtime: Runtime) -> tuple[list[FileChange], bool]:
    """The files changed since `commit`, each with its bounded diff, redacted with the whole
    file's context (a hunk inside a private key shows no key line)."""
    from rho_kernel.security import Redactor

    redactor = Redactor.from_config(runtime.config.redaction)
    store = recorder.store()
    changes = store.changed(commit)
    budget = [MAX_CONTEXT_TOTAL]
    files: list[FileChange] = []
    for change in changes[:MAX_FILES]:
        diff = store.diff(commit, change.path, max_bytes=MAX_DIFF_BYTES)
        old, new = _versions(store, runtime, commit, change, budget) if diff else (None, None)
        files.append(
            FileChange(
                path=change.path,
                status=change.status,
                diff=redactor.redact_diff(diff, old, new),
            )
        )
    return files, len(changes) > MAX_FILES


def _versions(
    store: Any, runtime: Runtime, commit: str, change: Any, budget: list[int]
) -> tuple[str | None, str | None]:
    """The text of a changed file at `commit` and now ("" where it does not exist; None
    where it is larger than `MAX_CONTEXT_BYTES`, or the requests' `budget` is spent): the
    context its diff is redacted with."""
    old: str | None = ""
    if change.status != "added":
        spec = f"{commit}:{change.path}"
        size = store.git.run(["cat-file", "-s", spec], check=False).strip()
        if not size.isdigit() or int(size) > min(MAX_CONTEXT_BYTES, budget[0]):
            old = None
        else:
            budget[0] -= int(size)
            old = store.git.run(["cat-file", "blob", spec]).decode("utf-8", "replace")
    new: str | None = ""
    if change.status != "deleted":
        new = _current_text(runtime, change.path, min(MAX_CONTEXT_BYTES, budget[0]))
        budget[0] -= len(new or "")
    return old, new


def _current_text(runtime: Runtime, path: str, limit: int) -> str | None:
    """The project file's text now, read through the sandbox (None: larger than `limit`, or
    not readable)."""
    from rho_kernel.security import SandboxError

    try:
        with runtime.root.open_read(path) as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError, SandboxError):
        return None
    return None if len(data) > limit else data.decode("utf-8", "replace")


__all__ = ["CHECKPOINT_ERROR", "checkpoint_methods"]
