"""Recording the work tree: an unchanged tree is the last snapshot again, a second store
object on the same project (another rho process) never makes a stale tree, writes go
through a private copy of the index, and too many new files stop a snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_checkpoints import CheckpointError, CheckpointStore
from rho_checkpoints.record import COPY_PREFIX


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    return root


def test_an_unchanged_tree_is_the_same_snapshot_and_a_change_a_new_one(
    project: Path, tmp_path: Path
) -> None:
    store = CheckpointStore.open(project, tmp_path / "state")
    first = store.snapshot("one", "s1")
    assert store.snapshot("again", "s1") == first
    assert store.snapshot("other session", "s2") != first  # kept by that session's ref too
    (project / "a.txt").write_text("two\n")
    assert store.snapshot("changed", "s1") != first


def test_another_process_updating_the_index_never_leaves_a_stale_tree(
    project: Path, tmp_path: Path
) -> None:
    mine = CheckpointStore.open(project, tmp_path / "state")
    theirs = CheckpointStore.open(project, tmp_path / "state")
    before = mine.snapshot("mine", "s1")
    (project / "a.txt").write_text("two\n")
    theirs.snapshot("theirs", "s2")  # the index now holds "two"
    after = mine.snapshot("mine again", "s1")
    assert after != before
    assert [change.path for change in mine.changed_between(before, after)] == ["a.txt"]


def test_writes_use_a_private_index_copy_and_copies_left_behind_go(
    project: Path, tmp_path: Path
) -> None:
    store = CheckpointStore.open(project, tmp_path / "state")
    first = store.snapshot("one")
    store_dir = store.git.store_dir
    assert not list(store_dir.glob(COPY_PREFIX + "*"))
    assert not (store_dir / "index.lock").exists()
    (store_dir / f"{COPY_PREFIX}0000").write_bytes(b"half written by a rho that died")
    (store_dir / f"{COPY_PREFIX}0000.lock").write_bytes(b"")  # and its git, killed
    again = CheckpointStore.open(project, tmp_path / "state")
    assert not list(store_dir.glob(COPY_PREFIX + "*"))
    (project / "a.txt").write_text("two\n")
    second = again.snapshot("two")  # the store works: no lock file left in its way
    assert [change.path for change in again.changed_between(first, second)] == ["a.txt"]


def test_more_new_files_than_the_limit_stop_the_snapshot(project: Path, tmp_path: Path) -> None:
    store = CheckpointStore.open(project, tmp_path / "state", max_new_files=3)
    store.snapshot("small")
    for n in range(4):
        (project / f"new{n}.txt").write_text(f"{n}\n")
    with pytest.raises(CheckpointError, match=r"4 files are new or changed.*max_files \(3\)"):
        store.snapshot("too many")
