"""Benchmark: what `rho --ephemeral` imports before it ends, by top-level package.

Run: uv run python bench/importtime.py [runs]
Starts the real `rho` with `-X importtime` (`PYTHONPROFILEIMPORTTIME`), with stdin closed so
that it writes `ready` and ends, and sums each package's own import time (median over the
runs). It prints the packages that cost the most, their module counts, and the total: the
table issue 23 asks for, to compare before and after a change to the startup path.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from rho_start import RHO, compile_workspace

LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s+(\S+)")
SHOWN = 25


def one_run(cwd: Path, env: dict[str, str]) -> tuple[dict[str, float], dict[str, int]]:
    """Each top-level package's own import time (ms) and module count, from one start."""
    result = subprocess.run(
        [RHO, "--ephemeral"],
        cwd=cwd,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    times: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for match in LINE.finditer(result.stderr):
        package = match.group(2).split(".", 1)[0]
        times[package] += int(match.group(1)) / 1000
        counts[package] += 1
    return times, counts


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        one_run(project, env)  # warm the file cache
        samples = [one_run(project, env) for _ in range(runs)]
    counts = samples[-1][1]
    medians = {
        package: statistics.median(times.get(package, 0.0) for times, _ in samples)
        for package in counts
    }
    total = statistics.median(sum(times.values()) for times, _ in samples)
    print(f"imports of `rho --ephemeral` (own time, median of {runs} runs)")
    print(f"{'package':<28}{'modules':>8}{'ms':>9}")
    for package, ms in sorted(medians.items(), key=lambda item: -item[1])[:SHOWN]:
        print(f"{package:<28}{counts[package]:>8}{ms:>9.1f}")
    print(f"{'all ' + str(len(counts)) + ' packages':<28}{sum(counts.values()):>8}{total:>9.1f}")


if __name__ == "__main__":
    main()
