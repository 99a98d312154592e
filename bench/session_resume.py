"""Benchmark: resume a 20,000-entry session with the real `rho` process, exec → `ready`.

Run: uv run python bench/session_resume.py [entries] [runs]
Writes a realistic session (bench/session_fixture.py) under a temporary home, then starts
`rho --session <file>` against it repeatedly and times exec → the `ready` line; a fresh
`rho --ephemeral` start is timed alongside for scale. Also prints `Session.open` alone, and
the resident memory of the resumed process at `ready` (target, issue 23: ≤ 250 MB).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_start import compile_workspace, finish, resident_mb, start, until_ready
from session_fixture import write_session

from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.store import Session


def time_to_ready(
    args: list[str], cwd: Path, env: dict[str, str], memory: list[float] | None = None
) -> float:
    """exec → `ready`; with `memory`, the process's resident MB at `ready` is appended."""
    started = time.perf_counter()
    process = start(["-m", "bench-model", *args], cwd, env)
    until_ready(process)
    elapsed = time.perf_counter() - started
    if memory is not None:
        memory.append(resident_mb(process.pid))
    finish(process)
    return elapsed


def summary(label: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return (
        f"{label}: median {statistics.median(ms):.0f} ms, min {ms[0]:.0f} ms, "
        f"max {ms[-1]:.0f} ms over {len(ms)} runs"
    )


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        (project / ".git").mkdir(parents=True)
        path = sessions_dir(project, home) / "1700000000_b0b0b0b0.jsonl"
        write_session(path, entries)
        size = path.stat().st_size / 1e6
        env = {**os.environ, "HOME": tmp}
        resume = ["--session", str(path)]
        time_to_ready(resume, project, env)  # warm the file cache
        resident: list[float] = []
        resumed = [time_to_ready(resume, project, env, resident) for _ in range(runs)]
        fresh = [time_to_ready(["--ephemeral"], project, env) for _ in range(runs)]
        opened = []
        for _ in range(runs):
            started = time.perf_counter()
            Session.open(path).close()
            opened.append(time.perf_counter() - started)
    print(f"session: {entries} entries, {size:.1f} MB")
    print(summary("exec → ready, resumed", resumed))
    print(summary("exec → ready, fresh (for scale)", fresh))
    print(summary("Session.open alone", opened))
    print(f"resident memory at ready, resumed: median {statistics.median(resident):.1f} MB")


if __name__ == "__main__":
    main()
