"""A store's loose objects are packed once enough have gathered, and its snapshots stay
whole: still restorable, byte for byte."""

from __future__ import annotations

from pathlib import Path

from rho_checkpoints import CheckpointStore
from rho_checkpoints.packing import LOOSE_LIMIT, object_counts


def test_loose_objects_are_packed_past_the_limit_and_snapshots_stay_restorable(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "few.txt").write_text("one\n")
    store = CheckpointStore.open(root, tmp_path / "state")
    store.snapshot("few")
    assert not store.maintain()  # a handful of loose objects: left as they are
    for n in range(LOOSE_LIMIT + 1):
        (root / f"file{n}.txt").write_text(f"content {n}\n")
    many = store.snapshot("many")
    loose_before = object_counts(store.git)["count"]
    size_before = store.size_bytes()

    assert store.maintain()
    counts = object_counts(store.git)
    assert loose_before > LOOSE_LIMIT and counts["count"] == 0 and counts["packs"] == 1
    assert store.size_bytes() < size_before
    for n in range(LOOSE_LIMIT + 1):
        (root / f"file{n}.txt").unlink()
    store.restore(many)
    assert (root / "file7.txt").read_text() == "content 7\n"
    assert len(list(root.glob("file*.txt"))) == LOOSE_LIMIT + 1
