"""Benchmark: the walk that finds every `.git` and `.rho` of a project before and after
each confined command (`rho_kernel.security.repositories.find_repositories`).

Run: uv run python bench/repositories_walk.py [files]   (default 50000)

A synthetic tree of `files` empty files (50 to a directory, 20 directories to a parent,
about 1,050 directories for 50,000 files) with a few nested repositories, `.rho`
directories, a `.git` file and a bare repository is walked several times; the median and
best are printed, with the walk per 1,000 entries. A command pays for two walks (one
before, one after).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.security.repositories import find_repositories


def build(root: Path, files: int) -> None:
    """`files` empty files under `root`, with repository internals among them."""
    made = 0
    a = 0
    while made < files:
        for b in range(20):
            directory = root / f"d{a}" / f"e{b}"
            directory.mkdir(parents=True)
            for c in range(min(50, files - made)):
                (directory / f"f{c}.txt").touch()
                made += 1
            if made >= files:
                break
        a += 1
    for nested in ("d0/.git/hooks", "d1/e1/.git/hooks", "d2/.rho"):
        (root / nested).mkdir(parents=True)
    (root / "d3" / ".git").write_text("gitdir: ../d0/.git\n")
    bare = root / "d4" / "lib.git"
    for name in ("objects", "refs"):
        (bare / name).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp).resolve()
        build(root, files)
        times = []
        for _ in range(7):
            started = time.perf_counter()
            found = find_repositories(root)
            times.append(time.perf_counter() - started)
        median, best = statistics.median(times), min(times)
        print(f"{files} files, {len(found.read_only)} read-only places found")
        print(f"walk: median {median * 1000:.1f} ms, best {best * 1000:.1f} ms")
        print(f"per 1,000 files: {median * 1000 / (files / 1000):.2f} ms")


if __name__ == "__main__":
    main()
