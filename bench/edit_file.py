"""Benchmark: edit_file on a 10,000-line Python file, with the tree-sitter syntax check.

Run: uv run python bench/edit_file.py [lines]   (default 10000)

A synthetic Python module (functions, comments, blank lines; about 34 bytes a line) is
written to a temporary project, then edit_file (`edit_file_at`, the tool without the RPC
loop) changes one line in the middle again and again. It prints the median and best time
of:

- `warm`: consecutive edits, as in a session — the parse tree of the previous result is
  cached, so only the edited region is re-parsed;
- `cold`: the tree cache emptied before each edit (the first edit of a file, not read
  before: one full parse);
- `cold+read`: the tree cache emptied, then the file read with read_file (which parses it in
  the background) and the background parse awaited, then the edit is timed: the first edit of
  a file the model has read, as is usual;
- `hashline`: warm, addressing the line by its anchor instead of by exact text;
- `no-check`: the same file named `.txt` (no grammar), i.e. the cost without the check.

The target is 50 ms for an edit with the syntax check. Everything runs in one event loop.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs import syntax
from rho_tools_fs.edit_run import edit_file_at
from rho_tools_fs.hashline import line_hash
from rho_tools_fs.read_file import read_file

try:
    from rho_tools_fs.preparse import PREPARSER
except ImportError:  # an older tree without background parsing
    PREPARSER = None

RUNS = 15


def module(lines: int) -> str:
    """About `lines` lines of plausible Python."""
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [
            f"def handler_{n}(request, options=None):",
            f'    """Handle request kind {n} and return a response."""',
            "    # validate the input before anything else",
            f"    value = request.get('field_{n}', {n})",
            f"    if value > {n % 97}:",
            f"        return {{'status': 'ok', 'value': value * {n % 13}}}",
            "    return None",
            "",
        ]
        n += 1
    return "\n".join(out[:lines]) + "\n"


Step = Callable[[int], Awaitable[None]]


async def measure(label: str, step: Step, setup: Step | None = None) -> None:
    times = []
    for run in range(RUNS):
        if setup is not None:
            await setup(run)
        started = time.perf_counter()
        await step(run)
        times.append((time.perf_counter() - started) * 1000)
    print(f"{label:>9}: median {statistics.median(times):6.1f} ms, best {min(times):6.1f} ms")


async def main() -> None:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        root = SandboxRoot(tmp)
        ctx = ToolContext(root=root, config=RhoConfig(), cancel=CancelToken())
        text = module(lines)
        for name in ("mod.py", "mod.txt"):
            (Path(tmp) / name).write_text(text)
        middle = lines // 2 // 8 * 8 + 4  # a `value = ...` line
        target = f"    value = request.get('field_{middle // 8}', {middle // 8})"
        print(f"{lines} lines, {len(text.encode())} bytes")

        def exact(name: str) -> Step:
            async def step(run: int) -> None:
                old = target if run % 2 == 0 else target + "  # edited"
                new = target + "  # edited" if run % 2 == 0 else target
                edits = [{"old_text": old, "new_text": new}]
                result = await edit_file_at(root, name, edits)
                assert not result.is_error and "[warning]" not in result.output, result.output

            return step

        async def forget(run: int) -> None:
            syntax.CACHE._trees.clear()

        async def forget_then_read(run: int) -> None:
            syntax.CACHE._trees.clear()
            result = await read_file.execute({"path": "mod.py"}, ctx)
            assert not result.is_error
            if PREPARSER is not None:
                await asyncio.to_thread(PREPARSER.idle)

        async def hashline(run: int) -> None:
            current = (Path(tmp) / "mod.py").read_text().split("\n")[middle - 1]
            pos = f"{middle}#{line_hash(current, middle)}"
            new = target if current.endswith("# edited") else target + "  # edited"
            edits = [{"op": "replace", "pos": pos, "lines": [new]}]
            result = await edit_file_at(root, "mod.py", edits)
            assert not result.is_error, result.output

        await exact("mod.py")(0)  # fill the cache
        await exact("mod.py")(1)
        await measure("warm", exact("mod.py"))
        await measure("cold", exact("mod.py"), forget)
        await measure("cold+read", exact("mod.py"), forget_then_read)
        await measure("hashline", hashline)
        await measure("no-check", exact("mod.txt"))


if __name__ == "__main__":
    asyncio.run(main())
