"""Benchmark: what rho-rpc's own imports cost, apart from the kernel's.

Run: uv run python bench/rpc_imports.py [runs]
Prints medians of CPU time (user + system, so a busy machine inflates them less than wall
time), each measured in a fresh interpreter:
- rho-rpc's modules that run before `ready`, with the kernel, pydantic and importlib.metadata
  already imported (what rho-rpc adds on top of them);
- the wire models one method needs (`prompt`'s group) and all of them (`rpc.discover`);
- whole `rho trust --list` and `rho --help` processes.
The workspace sources are byte-compiled first, as an installed rho would be.
"""

from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))

PRELOAD = (
    "import time, argparse, importlib.metadata, pydantic, rho_kernel, rho_kernel.runtime, "
    "rho_kernel.config.model, rho_kernel.session.stats\n"
)
PROBES = {
    "rho-rpc before ready": "import rho_rpc.cli, rho_rpc.app, rho_rpc.plugin, "
    "rho_rpc.method_table; rho_rpc.__version__",
    "wire models of prompt": "import rho_rpc.protocol.prompt",
    "every wire model": "import rho_rpc.wire",
}


def probe_cpu(statement: str) -> float:
    """CPU milliseconds `statement` takes in a fresh interpreter, after `PRELOAD`."""
    code = (
        PRELOAD + "t = time.process_time()\n" + statement + "\n"
        "print((time.process_time() - t) * 1000)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def process_cpu(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    """CPU milliseconds of a whole `rho ARGS` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [RHO, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    for source in (Path(__file__).resolve().parents[1] / "packages").glob("*/src"):
        compileall.compile_dir(source, quiet=1)
    for name, statement in PROBES.items():
        samples = [probe_cpu(statement) for _ in range(runs)]
        print(f"{name}: median {statistics.median(samples):.1f} ms CPU")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        for args in (["trust", "--list"], ["--help"]):
            samples = [process_cpu(args, project, env) for _ in range(runs)]
            print(f"rho {' '.join(args)}: median {statistics.median(samples):.0f} ms CPU")


if __name__ == "__main__":
    main()
