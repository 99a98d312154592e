"""rho-checkpoints: snapshots of the project's files, to compare with and restore.

Snapshots live in a private git object store under rho's state directory
(`STATE_DIR/checkpoints/KEY/`), driven through the `git` command with the project as its work
tree; the project's own `.git` is never touched. Ignored files, `.git` and `.rho` at any
depth, untracked nested repositories and files over a size limit are outside every snapshot.

- `CheckpointStore.open(root, state_dir)`: a project's store; `snapshot(label)`,
  `changed(since)`, `diff(since, path)`, `plan(to, paths)` (what a restore would change,
  and what it may not: `rho_checkpoints.refusals`), `restore(to, paths)`, `size_bytes()`
  (`rho_checkpoints.store`).
- `Change`: one file that differs from a snapshot (`rho_checkpoints.changes`).
- `git_available()`: why checkpoints are off, if they are; `CheckpointError`: what a failed
  operation raises (`rho_checkpoints.gitcmd`).
- `restore_files(runtime, entry_id=…, paths=…, force=…, undo=…)`: a front end's restore
  (`CheckpointRequestError` says why it cannot be done), `undo_last_turn(runtime)`: the
  files as the last prompt started (`rho_checkpoints.actions`).

Each name is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
    from rho_checkpoints.actions import (
        CHECKPOINT_ERROR,
        CheckpointRequestError,
        restore_files,
        undo_last_turn,
    )
    from rho_checkpoints.changes import Change
    from rho_checkpoints.gitcmd import CheckpointError, git_available
    from rho_checkpoints.store import CheckpointStore

_LAZY = {
    "CHECKPOINT_ERROR": "rho_checkpoints.actions",
    "CheckpointRequestError": "rho_checkpoints.actions",
    "restore_files": "rho_checkpoints.actions",
    "undo_last_turn": "rho_checkpoints.actions",
    "Change": "rho_checkpoints.changes",
    "CheckpointError": "rho_checkpoints.gitcmd",
    "git_available": "rho_checkpoints.gitcmd",
    "CheckpointStore": "rho_checkpoints.store",
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-checkpoints")

__all__ = [
    "CHECKPOINT_ERROR",
    "Change",
    "CheckpointError",
    "CheckpointRequestError",
    "CheckpointStore",
    "__version__",
    "git_available",
    "restore_files",
    "undo_last_turn",
]
