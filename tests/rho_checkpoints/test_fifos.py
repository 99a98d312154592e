"""A `.gitignore` or `.gitattributes` that is a FIFO: git, which waits to open it, is given
an end of file, so snapshots and restores still work and nothing hangs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rho_checkpoints import CheckpointStore

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the waiting git's /proc entries"
)


def test_fifo_ignore_files_are_read_as_empty_and_reported_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "keep.txt").write_text("one\n")
    (root / "sub" / "inner.txt").write_text("two\n")
    os.mkfifo(root / ".gitignore")
    os.mkfifo(root / "sub" / ".gitignore")
    os.mkfifo(root / "sub" / ".gitattributes")
    store = CheckpointStore.open(root, tmp_path / "state")

    first = store.snapshot("first")
    (root / "keep.txt").write_text("changed\n")
    (root / "sub" / "new.txt").write_text("three\n")
    second = store.snapshot("second")

    assert [change.path for change in store.changed_between(first, second)] == [
        "keep.txt",
        "sub/new.txt",
    ]
    store.restore(first)
    assert (root / "keep.txt").read_text() == "one\n"
    assert not (root / "sub" / "new.txt").exists()
    assert all(path.is_fifo() for path in (root / ".gitignore", root / "sub" / ".gitattributes"))
    warnings = capfd.readouterr().err.splitlines()
    for fifo in (root / ".gitignore", root / "sub" / ".gitignore"):
        said = [line for line in warnings if f"{fifo.resolve()} is a FIFO" in line]
        assert len(said) == 1, warnings
