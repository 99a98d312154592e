"""Benchmark: what the OS sandbox adds to a trivial command (`true`).

Run: uv run python bench/sandbox.py

Through the process runner (`run_process`, the path every tool takes: own process group,
pipes, output capture), `true` is started unconfined, confined by bubblewrap with the
project's real policy (read-only root, private /tmp, project bind, hidden credentials, no
network), and confined by Landlock in each tier this machine offers (its own namespaces, a
mount namespace only, Landlock and seccomp alone). For reference it also times `true` and
`bwrap … true` started bare with `subprocess.run`. It prints the median and best of each and
the difference. The targets: bubblewrap adds at most 10 ms; Landlock, which starts a Python
launcher in front of the command, at most 40 ms.
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
from rho_kernel.confinement import Bubblewrap, Confinement, ConfinementBackend, Landlock
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


async def confined_runs(
    backend: ConfinementBackend, project: Path, root: SandboxRoot, unconfined_ms: float
) -> None:
    """Time `true` under `backend` (skipped, saying why, where it cannot confine here)."""
    confinement = Confinement(SandboxConfig(), project, home=Path.home(), backends=[backend])
    status = confinement.status()
    label = backend.name + (f" ({backend.namespaces})" if isinstance(backend, Landlock) else "")
    if status.mode != "confined":
        print(f"{label:>22}: cannot confine here ({status.problem})")
        return
    launcher = confinement.launcher()

    async def confined() -> object:
        return await run_process(["true"], root=root, launcher=launcher)

    confined_ms = report(f"runner, {label}", await timed(confined))
    print(f"{'sandbox adds':>22}: {confined_ms - unconfined_ms:6.2f} ms (median)")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        root = SandboxRoot(project)

        async def plain() -> object:
            return await run_process(["true"], root=root)

        unconfined_ms = report("runner, unconfined", await timed(plain))
        backends: list[ConfinementBackend] = [Bubblewrap()]
        backends += [Landlock(namespaces=tier) for tier in ("user", "mount", "none")]
        for backend in backends:
            await confined_runs(backend, project, root, unconfined_ms)
        true_ms = report("bare true", bare(["true"]))
        bubblewrap = Confinement(
            SandboxConfig(), project, home=Path.home(), backends=[Bubblewrap()]
        )
        launcher = bubblewrap.launcher(approved_unconfined=True)
        if launcher is not None:
            bwrap_ms = report("bare bwrap true", bare(launcher.wrap(["true"], project)))
            print(f"{'bubblewrap itself adds':>22}: {bwrap_ms - true_ms:6.2f} ms (median)")


if __name__ == "__main__":
    asyncio.run(main())
