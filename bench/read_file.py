"""Benchmark: read_file of a 1 MB source file (hashlined, the default, and raw).

Run: uv run python bench/read_file.py [megabytes]   (default 1)

A synthetic Python module of the requested size (about 34 bytes a line) is read through
the tool (`read_file.execute`, sandbox open, binary sniff, decode, hashline rows, framing).
It prints the median and best of a few runs, and the hashline step alone. The target is
30 ms for 1 MB.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from edit_file import module  # type: ignore[import-not-found]  # bench/edit_file.py

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.hashline import format_hashlines
from rho_tools_fs.read_file import read_file

RUNS = 15


def report(label: str, times: list[float]) -> None:
    print(f"{label:>10}: median {statistics.median(times):6.1f} ms, best {min(times):6.1f} ms")


def main() -> None:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    size = int(megabytes * 1_000_000)
    text = module(size // 30)
    text = text[: text.rfind("\n", 0, size) + 1]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "big.py").write_text(text)
        ctx = ToolContext(root=SandboxRoot(tmp), config=RhoConfig(), cancel=CancelToken())
        print(f"{text.count(chr(10))} lines, {len(text.encode())} bytes")
        for label, args in (
            ("hashlined", {"path": "big.py"}),
            ("raw", {"path": "big.py", "hashline": False}),
        ):
            times = []
            for _ in range(RUNS):
                started = time.perf_counter()
                result = asyncio.run(read_file.execute(args, ctx))
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
            report(label, times)
        times = []
        for _ in range(RUNS):
            started = time.perf_counter()
            format_hashlines(text)
            times.append((time.perf_counter() - started) * 1000)
        report("rows only", times)


if __name__ == "__main__":
    main()
