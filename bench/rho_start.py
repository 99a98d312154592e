"""Starting the real `rho` for the benchmarks (not a benchmark itself).

`compile_workspace()` byte-compiles the workspace sources first, as an installed rho would be
(uv installs dependencies compiled); `start(args, cwd, env)` runs `rho` with pipes on stdin
and stdout; `until_ready(process)` reads its first line, which must be `ready`;
`line_with(process, wanted)` reads up to the line holding `wanted`; `time_to_ready(cwd, env)`
times exec → `ready`; `resident_mb(pid)` is a process's resident memory.
"""

from __future__ import annotations

import compileall
import subprocess
import sys
import time
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))


def compile_workspace() -> None:
    """Byte-compile every workspace package's sources."""
    packages = Path(__file__).resolve().parents[1] / "packages"
    for source in packages.glob("*/src"):
        compileall.compile_dir(source, quiet=1)


def start(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`rho *args` in `cwd` with `env`: stdin and stdout piped, stderr discarded."""
    return subprocess.Popen(
        [RHO, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def until_ready(process: subprocess.Popen[bytes]) -> None:
    """Read `process`'s first line, which must be the `ready` notification."""
    assert process.stdout is not None
    line = process.stdout.readline()
    assert b'"ready"' in line, line


def finish(process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Close `process`'s input and wait for it to end."""
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=timeout)


def line_with(process: subprocess.Popen[bytes], wanted: bytes) -> bytes:
    """Read `process`'s output up to the first line holding `wanted`; that line."""
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        assert line, "the process ended"
        if wanted in line:
            return line


def time_to_ready(cwd: Path, env: dict[str, str]) -> float:
    """Seconds from starting `rho --ephemeral` to its `ready` line."""
    started = time.perf_counter()
    process = start(["--ephemeral", "-m", "bench-model"], cwd, env)
    until_ready(process)
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def resident_mb(pid: int) -> float:
    """The resident memory of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")
