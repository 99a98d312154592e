"""Benchmark: what the OS sandbox adds to a trivial command (`true`).

Run: uv run python bench/sandbox.py

Through the process runner (`run_process`, the path every tool takes: own process group,
pipes, output capture), `true` is started unconfined and confined by bubblewrap with the
project's real policy (read-only root, private /tmp, project bind, hidden credentials, no
network). For reference it also times `true` and `bwrap … true` started bare with
`subprocess.run`. It prints the median and best of each and the difference. The target: the
sandbox adds at most 10 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rho_kernel.config.model import SandboxConfig
from rho_kernel.confinement import Bubblewrap, Confinement
from rho_kernel.process import run_process
from rho_kernel.security import SandboxRoot

RUNS = 40


def report(label: str, times: list[float]) -> float:
    median = statistics.median(times)
    print(f"{label:>22}: median {median:6.2f} ms, best {min(times):6.2f} ms")
    return median


async def timed(step: Callable[[], Awaitable[object]]) -> list[float]:
    await step()  # warm up
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        await step()
        times.append((time.perf_counter() - started) * 1000)
    return times


def bare(argv: list[str]) -> list[float]:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return times


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        root = SandboxRoot(project)
        confinement = Confinement(
            SandboxConfig(), project, home=Path.home(), backends=[Bubblewrap()]
        )
        launcher = confinement.launcher()
        assert launcher is not None, confinement.status()

        async def plain() -> object:
            return await run_process(["true"], root=root)

        async def confined() -> object:
            return await run_process(["true"], root=root, launcher=launcher)

        unconfined_ms = report("runner, unconfined", await timed(plain))
        confined_ms = report("runner, bubblewrap", await timed(confined))
        print(f"{'sandbox adds':>22}: {confined_ms - unconfined_ms:6.2f} ms (median)")
        true_ms = report("bare true", bare(["true"]))
        wrapped = launcher.wrap(["true"], project)
        bwrap_ms = report("bare bwrap true", bare(wrapped))
        print(f"{'bubblewrap itself adds':>22}: {bwrap_ms - true_ms:6.2f} ms (median)")


if __name__ == "__main__":
    asyncio.run(main())
