"""One rho process at a time works in a checkpoint store.

Two rho processes in the same project share its store: one pruning while the other writes a
snapshot could delete objects the snapshot is about to name, and a tree remembered from the
index (`rho_checkpoints.record`) is only right while nobody else replaces the index. Each
operation therefore holds an exclusive `flock` on the store's `rho.lock` (waiting for the
other process to finish); it dies with the process, so a crash leaves nothing locked.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

if sys.platform != "win32":
    import fcntl

#: The lock file's name inside a store.
LOCK_NAME = "rho.lock"
_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def store_locked(store_dir: Path) -> Iterator[None]:
    """Hold the store's lock while the block runs (no lock where `flock` is missing)."""
    if sys.platform == "win32":
        yield
        return
    descriptor = os.open(store_dir / LOCK_NAME, _FLAGS, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


__all__ = ["LOCK_NAME", "store_locked"]
