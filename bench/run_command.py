"""Overhead of run_command (`true`) through the tool vs a bare `subprocess.run(["true"])`,
the cost of a large output (`seq`) through the tool, and of cutting it to a result's share
of the context window (`bound_ends`, what the loop does to a result too large).

Run: python3 -m uv run python bench/run_command.py [iterations]
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import CommandPolicy, SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.run_command import run_command


def bare(iterations: int) -> float:
    started = time.perf_counter()
    for _ in range(iterations):
        subprocess.run(["true"], check=True)
    return (time.perf_counter() - started) / iterations


def bare_bash(iterations: int) -> float:
    started = time.perf_counter()
    for _ in range(iterations):
        subprocess.run(["bash", "--noprofile", "--norc", "-c", "true"], check=True)
    return (time.perf_counter() - started) / iterations


async def through_tool(root: Path, iterations: int) -> float:
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    await run_command.execute({"command": "true"}, ctx)  # warm up (tree-sitter grammar)
    started = time.perf_counter()
    for _ in range(iterations):
        result = await run_command.execute({"command": "true"}, ctx)
        assert not result.is_error, result.output
    return (time.perf_counter() - started) / iterations


async def large_output(root: Path, iterations: int, command: str) -> tuple[float, str]:
    """The time of `command` through the tool, and the result it gives."""
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    output = ""
    started = time.perf_counter()
    for _ in range(iterations):
        output = (await run_command.execute({"command": command}, ctx)).output
    return (time.perf_counter() - started) / iterations, output


def cutting(output: str, iterations: int, limit: int = 40_000) -> float:
    """The time the loop takes to cut `output` to `limit` bytes, its first and last lines."""
    from rho_kernel.context.bounding import bound_ends, shown

    started = time.perf_counter()
    for _ in range(iterations):
        bounded = bound_ends(output, limit)
        if bounded is not None:
            shown(bounded, None)
    return (time.perf_counter() - started) / iterations


def policy_only(iterations: int, line: str) -> float:
    policy = CommandPolicy()
    policy.check("true")
    started = time.perf_counter()
    for _ in range(iterations):
        policy.check(line)
    return (time.perf_counter() - started) / iterations


#: A line with the text-as-code forms the policy reads: a trap, git settings, assignments.
CODE_LINE = (
    "trap 'rm -f /tmp/x' EXIT; GIT_EDITOR=true git -c user.name=x -c core.pager=cat "
    'rebase --exec "cargo test" main && rm -rf "${OUT:-target}/debug"'
)


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        tool = asyncio.run(through_tool(Path(tmp), iterations))
        small = asyncio.run(large_output(Path(tmp), iterations // 4 or 1, "seq 1 5000"))
        large = asyncio.run(large_output(Path(tmp), iterations // 20 or 1, "seq 1 300000"))
    plain = bare(iterations)
    shell = bare_bash(iterations)
    check = policy_only(iterations * 10, "cargo test -p core 2>&1 | tail -50 && echo done")
    code = policy_only(iterations * 10, CODE_LINE)
    print(f"iterations:                      {iterations}")
    print(f"subprocess.run(['true']):        {plain * 1000:8.3f} ms")
    print(f"subprocess.run(bash -c true):    {shell * 1000:8.3f} ms")
    print(f"run_command 'true' (tool):       {tool * 1000:8.3f} ms")
    print(f"  overhead vs bare true:         {(tool - plain) * 1000:8.3f} ms")
    print(f"  overhead vs bare bash -c:      {(tool - shell) * 1000:8.3f} ms")
    for name, (took, output) in (("seq 1 5000", small), ("seq 1 300000", large)):
        size = len(output.encode())
        print(f"run_command '{name}':{' ' * (13 - len(name))}{took * 1000:8.3f} ms ({size} bytes)")
        print(f"  cut to 40 KB (bound_ends):     {cutting(output, 50) * 1000:8.3f} ms")
    print(f"policy check (one line):         {check * 1e6:8.1f} µs")
    print(f"policy check (text-as-code line): {code * 1e6:7.1f} µs")


if __name__ == "__main__":
    main()
