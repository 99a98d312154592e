"""Benchmark: what a workspace checkpoint costs (`rho_checkpoints.CheckpointStore.snapshot`).

Run: uv run python bench/checkpoint_snapshot.py [files]   (default 10000)

A synthetic project of `files` small source files (50 to a directory) with a `.gitignore`
and an ignored build folder is snapshotted into a new store (cold: every file is read and
hashed), then snapshotted again unchanged (warm: the case before most tool calls; the target
is at most 30 ms), then after editing one file. Medians and bests are printed.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rho_checkpoints import CheckpointStore


def build(root: Path, files: int) -> None:
    """`files` small files under `root` and an ignored `build/` folder."""
    for n in range(files):
        folder = root / f"pkg{n // 500}" / f"mod{n // 50 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{n % 50}.py").write_text(f"VALUE = {n}\n" + "# padding\n" * 20)
    (root / ".gitignore").write_text("build/\n*.pyc\n")
    (root / "build").mkdir()
    for n in range(200):
        (root / "build" / f"out{n}.o").write_bytes(b"\0" * 256)


def timed(action: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and best of `runs` runs of `action`, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp).resolve() / "project"
        root.mkdir()
        build(root, files)
        os.sync()  # the new files on disk first: their write-back would be timed otherwise
        stores = iter(range(1_000))

        def cold() -> None:
            state = Path(temp) / f"state{next(stores)}"
            CheckpointStore.open(root, state).snapshot("cold")

        cold_median, cold_best = timed(cold, 3)
        store = CheckpointStore.open(root, Path(temp) / "state")
        store.snapshot("first")
        time.sleep(1.1)  # past git's racy-timestamp window, as between real tool calls
        store.snapshot("settle")
        warm_median, warm_best = timed(lambda: store.snapshot("warm"), 21)
        edited = root / "pkg0" / "mod0" / "file0.py"
        edits = iter(range(1_000))

        def one_edit() -> None:
            edited.write_text(f"VALUE = {next(edits)}\n")
            store.snapshot("edit")

        edit_median, edit_best = timed(one_edit, 11)
        print(f"{files} files, store {store.size_bytes() / 1e6:.1f} MB")
        print(f"cold snapshot (new store): median {cold_median:.1f} ms, best {cold_best:.1f} ms")
        print(f"warm snapshot (unchanged): median {warm_median:.1f} ms, best {warm_best:.1f} ms")
        print(f"one file edited:           median {edit_median:.1f} ms, best {edit_best:.1f} ms")


if __name__ == "__main__":
    main()
