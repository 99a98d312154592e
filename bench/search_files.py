"""Benchmark: search_files (through the tool) against ripgrep itself on a 50,000-file tree.

Run: uv run python bench/search_files.py [runs]
Builds a lean tree (500 directories of 100 small files, a .gitignore, one ignored directory)
in a temporary directory, then times, each as the median of the runs:

- `rg PATTERN` as a user would run it (all threads, unsorted output);
- the search_files tool itself (`execute`, ripgrep underneath), for a rare and a common match;
- find_files for `*.py` (1000 results, the most it shows), each path confirmed through the
  sandbox;
- the tool's pure-Python fallback (`RHO_RG=""`) once, for scale.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.find_files import find_files
from rho_tools_fs.ripgrep import find_rg
from rho_tools_fs.search_files import search_files

DIRS = 500
FILES_PER_DIR = 100


def build(root: Path) -> None:
    (root / ".gitignore").write_text("ignored/\n*.tmp\n")
    for d in range(DIRS):
        directory = root / f"pkg{d:03}"
        directory.mkdir()
        for f in range(FILES_PER_DIR):
            marker = "rare_needle" if (d * FILES_PER_DIR + f) % 5000 == 0 else "common"
            (directory / f"mod{f:03}.py").write_text(f"def f{f}():\n    return '{marker}'\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "x.py").write_text("rare_needle\n")


def median_time(func: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        func()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rg = find_rg()
    if rg is None:
        sys.exit("rg not found")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        build(root)
        ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())

        def tool(pattern: str) -> None:
            result = asyncio.run(search_files.execute({"pattern": pattern}, ctx))
            assert not result.is_error, result.output

        def plain_rg(pattern: str) -> None:
            subprocess.run([rg, pattern], cwd=root, stdout=subprocess.DEVNULL, check=False)

        tool("rare_needle")  # warm the page cache
        print(f"tree: {DIRS * FILES_PER_DIR} files; median of {runs} runs")
        for pattern in ("rare_needle", "common"):
            plain = median_time(lambda p=pattern: plain_rg(p), runs)
            ours = median_time(lambda p=pattern: tool(p), runs)
            print(
                f"{pattern!r:14} rg: {plain * 1000:7.1f} ms  search_files: "
                f"{ours * 1000:7.1f} ms  ratio: {ours / plain:4.2f}x"
            )

        def find() -> None:
            arguments = {"pattern": "*.py", "max_results": 1000}
            result = asyncio.run(find_files.execute(arguments, ctx))
            assert not result.is_error, result.output

        print(f"find_files '*.py' (1000 results): {median_time(find, runs) * 1000:7.1f} ms")
        os.environ["RHO_RG"] = ""
        fallback = median_time(lambda: tool("rare_needle"), 1)
        print(f"fallback (pure Python, 'rare_needle'): {fallback * 1000:.0f} ms")


if __name__ == "__main__":
    main()
