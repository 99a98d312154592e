"""Benchmark: the real `rho` process answering one huge JSON-RPC batch line.

Run: uv run python bench/rpc_batch.py [items]
Sends one line `[1,1,…]` of `items` members (default 8,000,000: a 16 MB line, just under the
16 MiB line limit), waits for the answer and prints the time it took, the peak resident memory
of the rho process and the start of the answer. Each member is an invalid request, the
cheapest thing to send and the most responses to build.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))


def batch_line(items: int) -> bytes:
    """A JSON array of `items` ones, with its newline."""
    return b"[" + b"1," * (items - 1) + b"1]\n"


def run(items: int) -> tuple[float, int, bytes]:
    """Seconds from sending the line to its answer, peak RSS of rho in KiB, the answer's start."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp, "NO_COLOR": "1"}
        proc = subprocess.Popen(
            [RHO, "--ephemeral"],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None and proc.stdout is not None
        assert b'"ready"' in proc.stdout.readline()
        line = batch_line(items)  # built after the fork, so rho's peak memory is its own
        started = time.perf_counter()
        proc.stdin.write(line)
        proc.stdin.flush()
        answer = proc.stdout.readline()
        elapsed = time.perf_counter() - started
        proc.stdin.close()
        proc.stdout.read()
        proc.wait(timeout=600)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak_kib, answer[:200]


def main() -> None:
    """Run once with the item count from the command line and print the figures."""
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 8_000_000
    elapsed, peak_kib, answer = run(items)
    size_mb = len(batch_line(items)) / 1e6
    print(f"batch of {items:,} members ({size_mb:.1f} MB line)")
    print(f"answered in {elapsed:.2f} s; peak RSS of rho {peak_kib / 1024:.0f} MiB")
    print(f"answer starts: {answer.decode(errors='replace')}")


if __name__ == "__main__":
    main()
