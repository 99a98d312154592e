"""A restore never overwrites, replaces or deletes what rho could not record — a file over the
size limit (now, or at the point restored to), an ignored file, a FIFO, what a nested
repository held — and says why; a folder replaced by a link neither stops snapshots nor
lets a restore write through the link. Real git, real files."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rho_checkpoints import Change, CheckpointError, CheckpointStore
from rho_checkpoints.gitcmd import neutral_environment
from rho_checkpoints.leftout import left_out_of
from rho_checkpoints.record import NAMED_PATHS_LIMIT
from rho_checkpoints.refusals import Disk, refusals

MIB = 1 << 20


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "d").mkdir(parents=True)
    (project / "d" / "f").write_text("f before\n")
    (project / "d" / "g").write_text("g before\n")
    (project / "notes.txt").write_text("notes before\n")
    return project


def _store(root: Path, tmp_path: Path) -> CheckpointStore:
    return CheckpointStore.open(root, tmp_path / "state", max_file_bytes=MIB)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_grown_past_the_limit_is_never_overwritten_and_the_reason_says_so(
    root: Path, tmp_path: Path
) -> None:
    (root / "a.bin").write_bytes(b"\x01" * 1000)
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    (root / "a.bin").write_bytes(os.urandom(2 * MIB))
    (root / "notes.txt").write_text("notes after\n")
    grown = _digest(root / "a.bin")

    plan = store.plan(first)
    why = "a.bin is 2 MiB, over [checkpoints] max_file_mb = 1: rho could not record it, so it "
    assert plan.refused == {"a.bin": why + "is not overwritten"}
    with pytest.raises(CheckpointError, match=re.escape(why)):
        store.restore(first)
    assert _digest(root / "a.bin") == grown
    assert (root / "notes.txt").read_text() == "notes after\n"  # nothing was written
    assert store.restore(first, ["notes.txt"]) == [Change("notes.txt", "modified")]
    assert (root / "notes.txt").read_text() == "notes before\n"


def test_a_file_over_the_limit_at_the_point_restored_to_is_not_deleted(
    root: Path, tmp_path: Path
) -> None:
    (root / "a.bin").write_bytes(os.urandom(2 * MIB))
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    assert left_out_of(store.git, first) == {"a.bin"}
    (root / "a.bin").write_bytes(b"small now\n")  # recorded from here on

    assert store.changed(first) == [Change("a.bin", "added")]
    plan = store.plan(first)
    assert plan.refused == {
        "a.bin": "a.bin was over [checkpoints] max_file_mb = 1 at that point: rho could not "
        "record it then, so it is not deleted"
    }
    with pytest.raises(CheckpointError, match="not deleted"):
        store.restore(first)
    assert (root / "a.bin").read_bytes() == b"small now\n"


def test_a_snapshot_that_left_out_other_files_is_a_snapshot_of_its_own(
    root: Path, tmp_path: Path
) -> None:
    (root / "a.bin").write_bytes(os.urandom(2 * MIB))
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    (root / "a.bin").unlink()  # the same tree, but nothing left out now
    second = store.snapshot("second")
    assert second != first and left_out_of(store.git, second) == frozenset()
    (root / "a.bin").write_text("new and small\n")
    assert store.restore(second) == [Change("a.bin", "added")]  # it was not there: deleted
    assert not (root / "a.bin").exists()


def test_a_file_ignored_since_is_not_overwritten(root: Path, tmp_path: Path) -> None:
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    (root / ".gitignore").write_text("notes.txt\n")
    (root / "notes.txt").write_text("private notes\n")

    assert store.plan(first).refused == {
        "notes.txt": "notes.txt is ignored (a .gitignore names it): rho does not record it, "
        "so it is not overwritten"
    }
    assert store.restore(first, [".gitignore"]) == [Change(".gitignore", "added")]
    assert (root / "notes.txt").read_text() == "private notes\n"


def test_a_fifo_where_a_file_was_is_not_replaced(root: Path, tmp_path: Path) -> None:
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    (root / "notes.txt").unlink()
    os.mkfifo(root / "notes.txt")

    assert store.plan(first).refused == {
        "notes.txt": "notes.txt is a FIFO, not a file: rho could not record it, so it is not "
        "overwritten"
    }
    assert (root / "notes.txt").is_fifo()


def test_a_large_file_where_a_folder_was_is_not_replaced(root: Path, tmp_path: Path) -> None:
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    shutil.rmtree(root / "d")
    (root / "d").write_bytes(os.urandom(3 * MIB // 2))

    refused = store.plan(first).refused
    assert set(refused) == {"d/f", "d/g"}
    assert refused["d/f"] == (
        "d is 1.5 MiB, over [checkpoints] max_file_mb = 1: rho could not record it, so it is "
        "not replaced"
    )
    assert (root / "d").stat().st_size == 3 * MIB // 2


def test_what_a_nested_repository_held_at_the_point_is_not_deleted(
    root: Path, tmp_path: Path
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_text("in a repository of its own\n")
    env = neutral_environment(os.environ)
    subprocess.run(["git", "init", "-q", str(root / "sub")], env=env, check=True)
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    shutil.rmtree(root / "sub" / ".git")  # its files are recorded from here on

    assert store.plan(first).refused == {
        "sub/x.txt": "sub/x.txt was inside the repository sub/ at that point, which rho does "
        "not record: it is not deleted"
    }
    assert (root / "sub" / "x.txt").exists()


@pytest.mark.parametrize("more", [0, NAMED_PATHS_LIMIT])  # git named each path, or walked
def test_a_folder_replaced_by_a_link_is_recorded_and_restored_without_following_it(
    root: Path, tmp_path: Path, more: int
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f").write_text("not the project's\n")
    for index in range(more):
        (root / "d" / f"more{index:03}").write_text(f"{index}\n")
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    shutil.rmtree(root / "d")
    (root / "d").symlink_to(outside)

    later = store.snapshot("later")  # git would call d/f "beyond a symbolic link"
    changed = store.changed_between(first, later)
    assert changed[0] == Change("d", "added") and len(changed) == 3 + more
    assert {c.status for c in changed[1:]} == {"deleted"}
    assert store.changed(first) == changed
    assert "f before" in store.diff(first, "d/f")
    for path in ("d/f", "d/g/h"):
        with pytest.raises(CheckpointError, match="lies beyond d, which is a symbolic link now"):
            store.restore(first, [path])
    assert store.restore(first, ["d"]) == changed
    assert not (root / "d").is_symlink()
    assert (root / "d" / "f").read_text() == "f before\n"
    assert (outside / "f").read_text() == "not the project's\n"


def test_a_path_beyond_a_file_that_stands_where_its_folder_was_is_refused(
    root: Path, tmp_path: Path
) -> None:
    store = _store(root, tmp_path)
    first = store.snapshot("first")
    shutil.rmtree(root / "d")
    (root / "d").write_text("a file now\n")

    with pytest.raises(CheckpointError, match="lies beyond d, which is not a folder now"):
        store.plan(first, ["d/f"])
    assert store.plan(first, ["d"]).refused == {}  # d, recorded now, is deleted first
    store.restore(first, ["d"])
    assert (root / "d" / "g").read_text() == "g before\n"


def test_a_change_beyond_a_link_the_restore_leaves_is_refused(root: Path) -> None:
    (root / "x").write_text("a file where a folder was\n")
    disk = Disk(root, MIB, lambda paths: set())
    changes = [Change("x", "added"), Change("x/y", "deleted")]

    refused = refusals(disk, changes, changes[1:], frozenset())

    assert refused == {"x/y": "x/y lies beyond x, which is a file now: restore x with it"}
    assert refusals(disk, changes, changes, frozenset()) == {}
