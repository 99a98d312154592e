"""Benchmark: exec → `ready` of the real `rho` process, with every workspace package installed.

Run: uv run python bench/startup.py [runs]
Prints the median and spread of exec → `ready` (with no model named, as on a first run, rho
asks the local server which model it has loaded before `ready`; and with one named) and of
exec → the first model request (a `prompt` written at once, answered by a scripted server on
127.0.0.1), the resident memory at `ready`, next to a bare `python -c pass` for scale. The workspace sources are
byte-compiled first, as an installed rho would be (uv installs dependencies compiled).
Targets (issue 23): `ready` ≤ 100 ms on the reference machine, resident memory ≤ 60 MB.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_start import compile_workspace, finish, resident_mb, start, until_ready

from rho_kernel.testing import ScriptedServer, text_reply


def time_to_ready(cwd: Path, env: dict[str, str], *args: str) -> float:
    """exec → `ready` of `rho --ephemeral *args`."""
    started = time.perf_counter()
    process = start(["--ephemeral", *args], cwd, env)
    until_ready(process)
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def resident_at_ready(cwd: Path, env: dict[str, str]) -> float:
    """The resident memory (MB) of `rho --ephemeral` once it has written `ready`."""
    process = start(["--ephemeral"], cwd, env)
    until_ready(process)
    resident = resident_mb(process.pid)
    finish(process)
    return resident


def time_to_first_request(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    """exec → the scripted server has the first model request of a prompt sent at once."""
    server.add(text_reply("ok"))
    seen = len(server.requests)
    started = time.perf_counter()
    process = start(["--ephemeral", "--endpoint", server.chat_url, "-m", "bench-model"], cwd, env)
    assert process.stdin is not None
    request = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "hi"}}
    process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    server.wait_for_requests(seen + 1, timeout=60)
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def time_bare_python() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        time_to_ready(project, env)  # warm the file cache
        samples = sorted(time_to_ready(project, env) for _ in range(runs))
        named = sorted(time_to_ready(project, env, "-m", "bench-model") for _ in range(runs))
        bare = sorted(time_bare_python() for _ in range(runs))
        with ScriptedServer() as server:
            first = sorted(time_to_first_request(project, env, server) for _ in range(runs))
        resident = sorted(resident_at_ready(project, env) for _ in range(5))
        _install_extensions(Path(tmp) / ".rho" / "extensions")
        time_to_ready(project, env)
        with_extensions = sorted(time_to_ready(project, env) for _ in range(runs))
    ms = [s * 1000 for s in samples]
    print(
        f"exec → ready over {runs} runs: median {statistics.median(ms):.0f} ms, "
        f"min {ms[0]:.0f} ms, p90 {ms[int(runs * 0.9) - 1]:.0f} ms"
    )
    named_ms = [s * 1000 for s in named]
    print(
        f"exec → ready with a model named (no asking the local server): median "
        f"{statistics.median(named_ms):.0f} ms, min {named_ms[0]:.0f} ms, "
        f"p90 {named_ms[int(runs * 0.9) - 1]:.0f} ms"
    )
    first_ms = [s * 1000 for s in first]
    print(
        f"exec → first model request over {runs} runs: median "
        f"{statistics.median(first_ms):.0f} ms, min {first_ms[0]:.0f} ms, "
        f"p90 {first_ms[int(runs * 0.9) - 1]:.0f} ms"
    )
    print(f"resident memory at ready: median {statistics.median(resident):.1f} MB")
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
