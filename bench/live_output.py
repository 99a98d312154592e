"""Cost of live output: a command writing a lot, run with and without a client watching, and
the line chunker alone on awkward input.

Run: python3 -m uv run --all-packages python bench/live_output.py [lines]   (default 200000)

- `run_process seq`: `seq 1 N` through the process runner, without live output and with a
  sink receiving it (whole lines, the gaps marked), median of 5 runs;
- `LiveLines`: megabytes per second fed to the chunker in 64 KiB reads: many short lines,
  lines just under the long-line limit, lines over it, one endless line, and a line
  arriving one character per read.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.process import LiveLines, run_process
from rho_kernel.security import SandboxRoot


async def run_seq(root: Path, lines: int, live: bool) -> tuple[float, int]:
    chunks: list[str] = []

    async def sink(stream: str, text: str) -> None:
        chunks.append(text)

    started = time.perf_counter()
    result = await run_process(
        ["seq", "1", str(lines)], root=SandboxRoot(root), on_output=sink if live else None
    )
    assert result.ok
    return time.perf_counter() - started, len(chunks)


def chunker(text: str, read: int = 65536) -> float:
    lines = LiveLines(16384)
    started = time.perf_counter()
    for start in range(0, len(text), read):
        lines.feed(text[start : start + read])
        lines.take()
    lines.take(final=True)
    return len(text) / (time.perf_counter() - started) / 1e6


def one_char_reads(count: int) -> float:
    lines = LiveLines(16384)
    started = time.perf_counter()
    for _ in range(count):
        lines.feed("z")
    lines.take(final=True)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    with tempfile.TemporaryDirectory() as tmp:
        for live in (False, True):
            runs = [asyncio.run(run_seq(Path(tmp), count, live)) for _ in range(5)]
            median = statistics.median(seconds for seconds, _ in runs)
            label = "with live output" if live else "without live output"
            print(f"run_process seq 1 {count} {label:>20}: {median * 1000:7.1f} ms", end="")
            print(f"  ({runs[0][1]} notifications)" if live else "")
    cases = {
        "short lines": "".join(f"{n}\n" for n in range(1, 400_000)),
        "4000-char lines": ("x" * 4000 + "\n") * 1000,
        "5000-char lines": ("x" * 5000 + "\n") * 1000,
        "one 20 MB line": "y" * 20_000_000 + "\n",
    }
    for name, text in cases.items():
        print(f"LiveLines {name:>16}: {chunker(text):8.1f} MB/s")
    print(f"LiveLines one char per read: {one_char_reads(500_000):6.2f} µs a read")


if __name__ == "__main__":
    main()
