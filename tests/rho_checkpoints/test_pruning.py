"""Pruning a checkpoint store: the sessions used longest ago go first, whole, never the
running one's, until the store fits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_checkpoints import CheckpointError, CheckpointStore
from rho_checkpoints.pruning import sessions_by_age


@pytest.fixture
def store(tmp_path: Path) -> CheckpointStore:
    project = tmp_path / "project"
    project.mkdir()
    return CheckpointStore.open(project, tmp_path / "state")


def test_the_oldest_sessions_go_first_and_the_running_one_never(
    store: CheckpointStore,
) -> None:
    project = store.root
    (project / "big.bin").write_bytes(os.urandom(256 * 1024))
    old = store.snapshot("old", "session-old")
    (project / "big.bin").write_bytes(os.urandom(256 * 1024))
    newer = store.snapshot("newer", "session-newer")
    (project / "big.bin").write_bytes(os.urandom(256 * 1024))
    running = store.snapshot("running", "session-running")
    assert [s for s, _ in sessions_by_age(store.git)][-1] in ("session-running", "session-newer")
    assert store.prune(store.size_bytes() + 1, keep="session-running") == 0  # it fits
    deleted = store.prune(1, keep="session-running")  # nothing fits: all but the running
    assert deleted == 2
    with pytest.raises(CheckpointError, match="no snapshot"):
        store.changed(old)
    with pytest.raises(CheckpointError, match="no snapshot"):
        store.changed(newer)
    assert store.changed(running) == []
    assert [s for s, _ in sessions_by_age(store.git)] == ["session-running"]
