"""Starting the real `rho` for the benchmarks (not a benchmark itself).

`compile_workspace()` byte-compiles the workspace sources first, as an installed rho would be
(uv installs dependencies compiled); `start(args, cwd, env)` runs `rho` with pipes on stdin
and stdout; `until_ready(process)` reads its first line, which must be `ready`;
`resident_mb(pid)` is a process's resident memory.
"""

from __future__ import annotations

import compileall
import subprocess
import sys
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


def resident_mb(pid: int) -> float:
    """The resident memory of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")
