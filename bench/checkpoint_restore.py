"""Benchmark: restoring a checkpoint, and how a store grows over a long session
(`rho_checkpoints.CheckpointStore`).

Run: uv run python bench/checkpoint_restore.py [files] [turns]   (default 10000, 200)

Restore: on the synthetic project of `bench/checkpoint_snapshot.py`, a turn edits 100 files,
deletes 10 and adds 10; `restore` back to before it and forward again, timed (medians).

Growth: a session of `turns` turns, each editing three files (one of them a larger file) and
adding a new file every fifth turn, with the snapshots rho takes (as the prompt starts,
before each of two tool calls, as the turn ends) and the store's upkeep after each turn
(`maintain`, `prune`); the store's size on disk is printed every 50 turns.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from checkpoint_snapshot import build

from rho_checkpoints import CheckpointStore


def change(root: Path, round_: int) -> None:
    """Edit 100 files, delete 10 and add 10."""
    for n in range(100):
        path = root / "pkg0" / f"mod{n // 50 % 10}" / f"file{n % 50}.py"
        path.write_text(f"VALUE = {round_}\n" + "# padding\n" * 20)
    for n in range(10):
        (root / "pkg1" / "mod0" / f"file{n}.py").unlink(missing_ok=True)
        (root / "pkg2" / f"new{round_}_{n}.py").write_text(f"NEW = {n}\n")


def restore_times(root: Path, state: Path, rounds: int) -> tuple[float, float]:
    store = CheckpointStore.open(root, state)
    back, forth = [], []
    for round_ in range(rounds):
        before = store.snapshot("before")
        change(root, round_)
        after = store.snapshot("after")
        started = time.perf_counter()
        store.restore(before)
        back.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.restore(after)
        forth.append((time.perf_counter() - started) * 1000)
    return statistics.median(back), statistics.median(forth)


def growth(root: Path, state: Path, turns: int) -> None:
    store = CheckpointStore.open(root, state)
    session = "bench-session"
    large = root / "data.json"
    large.write_text('{"rows": [' + ",".join(f'{{"n": {n}}}' for n in range(20_000)) + "]}\n")
    store.snapshot("start", session)
    print(f"  turn   0: {store.size_bytes() / 1e6:7.1f} MB")
    for turn in range(1, turns + 1):
        store.snapshot("turn_start", session)
        (root / "pkg3" / "mod1" / "file7.py").write_text(f"TURN = {turn}\n")
        store.snapshot("before_call", session)
        text = large.read_text()
        large.write_text(text.replace('{"n": 1}', f'{{"n": 1, "turn": {turn}}}', 1))
        store.snapshot("before_call", session)
        (root / "pkg4" / "mod2" / "file3.py").write_text(f"AGAIN = {turn}\n")
        if turn % 5 == 0:
            (root / "pkg5" / f"added{turn}.py").write_text(f"ADDED = {turn}\n")
        store.snapshot("turn_end", session)
        store.maintain()
        store.prune(500 << 20, session)
        if turn % 50 == 0:
            print(f"  turn {turn:3}: {store.size_bytes() / 1e6:7.1f} MB")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    turns = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp).resolve() / "project"
        root.mkdir()
        build(root, files)
        back, forth = restore_times(root, Path(temp) / "state", 5)
        print(f"{files} files; a turn that edited 100, deleted 10 and added 10 files:")
        print(f"restore to before it: median {back:.1f} ms; back to after it: {forth:.1f} ms")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp).resolve() / "project"
        root.mkdir()
        build(root, files)
        print(f"store size over a {turns}-turn session ({files} files):")
        growth(root, Path(temp) / "state", turns)


if __name__ == "__main__":
    main()
