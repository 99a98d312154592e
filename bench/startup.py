"""Benchmark: exec → `ready` of the real `rho` process, with every workspace package installed.

Run: uv run python bench/startup.py [runs]
Prints the median and spread, next to a bare `python -c pass` for scale. The workspace sources
are byte-compiled first, as an installed rho would be (uv installs dependencies compiled).
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))


def time_to_ready(cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [RHO, "--ephemeral"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    assert b'"ready"' in line, line
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed


def time_bare_python() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    packages = Path(__file__).resolve().parents[1] / "packages"
    for source in packages.glob("*/src"):
        compileall.compile_dir(source, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        time_to_ready(project, env)  # warm the file cache
        samples = sorted(time_to_ready(project, env) for _ in range(runs))
        bare = sorted(time_bare_python() for _ in range(runs))
        _install_extensions(Path(tmp) / ".rho" / "extensions")
        time_to_ready(project, env)
        with_extensions = sorted(time_to_ready(project, env) for _ in range(runs))
    ms = [s * 1000 for s in samples]
    print(
        f"exec → ready over {runs} runs: median {statistics.median(ms):.0f} ms, "
        f"min {ms[0]:.0f} ms, p90 {ms[int(runs * 0.9) - 1]:.0f} ms"
    )
    extended = statistics.median(with_extensions) * 1000
    print(
        f"with 5 extensions installed: median {extended:.0f} ms "
        f"({extended - statistics.median(ms):+.0f} ms; they load after ready)"
    )
    print(f"bare `python -c pass`: median {statistics.median(bare) * 1000:.0f} ms")


def _install_extensions(folder: Path) -> None:
    folder.mkdir(parents=True)
    for n in range(5):
        (folder / f"ext{n}.ts").write_text(
            f"export default {{ name: 'ext{n}', tools: [{{ name: 'tool{n}', description: 'x', "
            f"risk: 'read' as const, execute: (a: string) => a }}] }};\n"
        )


if __name__ == "__main__":
    main()
