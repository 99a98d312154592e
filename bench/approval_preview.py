"""Benchmark: the preview diff of a change to a 10,000-line file.

Run: uv run python bench/approval_preview.py [lines]
Times `unified_preview` for three changes to a file of `lines` lines (default 10,000): one
line changed in the middle, a block of 50 lines replaced, and lines changed throughout (every
100th). Target (issue 24): at most 20 ms for the 10,000-line file.
"""

from __future__ import annotations

import statistics
import sys
import time

from rho_kernel.tools import unified_preview


def _median_ms(old: str, new: str, runs: int = 21) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        unified_preview("src/big.rs", old, new)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    lines = [f"    let value_{n} = compute({n}, &input[{n}..]);\n" for n in range(count)]
    old = "".join(lines)
    middle = count // 2
    one = [*lines[:middle], "    let changed = 1;\n", *lines[middle + 1 :]]
    block = [*lines[:middle], *(f"    // replaced {n}\n" for n in range(50)), *lines[middle + 50 :]]
    spread = [f"    // edited {n}\n" if n % 100 == 0 else line for n, line in enumerate(lines)]
    print(f"preview diff of a {count}-line file, median of 21")
    for label, new in (("one line", one), ("a 50-line block", block), ("every 100th line", spread)):
        print(f"  {label}: {_median_ms(old, ''.join(new)):.2f} ms")


if __name__ == "__main__":
    main()
