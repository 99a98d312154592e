"""Benchmark: read_file of a 1 MB source file (hashlined, the default, and raw).

Run: uv run python bench/read_file.py [megabytes]   (default 1)

A synthetic Python module of the requested size (about 34 bytes a line) is read through
the tool (`read_file.execute`: sandbox open, binary sniff, decode, hashline rows, framing),
all in one running event loop as in rho. It prints the median and best of a few runs of:

- `first`: the very first hashlined read in this process (one run);
- `cold`: hashlined, the line-seed cache emptied before each run (a file never read before);
- `warm`: hashlined, consecutive reads of the same file (a re-read: every line is cached);
- `raw`: `hashline: false`;
- `range`: hashlined, `offset`/`limit` of 2,000 lines from the middle (cold);
- `rows cold` / `rows warm`: the hashline step alone (`format_hashlines`).

Before each run the background parse a read queues for edit_file (`rho_tools_fs.preparse`)
is awaited, so that it does not compete with the read being measured.

The target is 30 ms for 1 MB hashlined, cold.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from edit_file import module  # type: ignore[import-not-found]  # bench/edit_file.py

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.hashline import format_hashlines
from rho_tools_fs.read_file import read_file

try:
    from rho_tools_fs.line_seeds import SEEDS

    clear_cache: Callable[[], None] = SEEDS.clear
except ImportError:  # an older tree without the cache: every read is cold

    def clear_cache() -> None:
        pass


try:  # a read also queues a background parse of the file for edit_file: let it finish first
    from rho_tools_fs.preparse import PREPARSER

    settle: Callable[[], object] = PREPARSER.idle
except ImportError:  # an older tree without background parsing

    def settle() -> None:
        pass


RUNS = 15


def report(label: str, times: list[float]) -> None:
    print(f"{label:>10}: median {statistics.median(times):6.1f} ms, best {min(times):6.1f} ms")


async def measure(label: str, step: Callable[[], Awaitable[object]], clear: bool) -> None:
    times = []
    for _ in range(RUNS):
        await asyncio.to_thread(settle)
        if clear:
            clear_cache()
        started = time.perf_counter()
        await step()
        times.append((time.perf_counter() - started) * 1000)
    report(label, times)


async def main() -> None:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    size = int(megabytes * 1_000_000)
    text = module(size // 30)
    text = text[: text.rfind("\n", 0, size) + 1]
    lines = text.count("\n")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "big.py").write_text(text)
        ctx = ToolContext(root=SandboxRoot(tmp), config=RhoConfig(), cancel=CancelToken())
        print(f"{lines} lines, {len(text.encode())} bytes")

        def reader(args: dict[str, object]) -> Callable[[], Awaitable[object]]:
            async def step() -> None:
                result = await read_file.execute(args, ctx)
                assert not result.is_error, result.output

            return step

        started = time.perf_counter()
        await reader({"path": "big.py"})()
        report("first", [(time.perf_counter() - started) * 1000])
        await measure("cold", reader({"path": "big.py"}), clear=True)
        await measure("warm", reader({"path": "big.py"}), clear=False)
        await measure("raw", reader({"path": "big.py", "hashline": False}), clear=True)
        ranged = {"path": "big.py", "offset": lines // 2, "limit": 2000}
        try:
            await reader(ranged)()
        except AssertionError:  # an older tree without offset/limit
            pass
        else:
            await measure("range", reader(ranged), clear=True)

        async def rows() -> None:
            format_hashlines(text)

        await measure("rows cold", rows, clear=True)
        await measure("rows warm", rows, clear=False)


if __name__ == "__main__":
    asyncio.run(main())
