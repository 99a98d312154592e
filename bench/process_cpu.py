"""Benchmark: CPU time of one real `rho` process, from exec to exit.

Run: uv run python bench/process_cpu.py [runs]
Two cases, each the median and minimum over `runs` processes (user + system CPU, the
process's children included): `ready` (stdin closed at once: start-up, `ready`, shutdown)
and `prompt` (one prompt answered by a scripted model server on 127.0.0.1, then end of
input). Every workspace package is installed and loaded, as the tests load them. A bare
`python -c pass` is shown for scale. The workspace sources are byte-compiled first, as an
installed rho would be.
"""

from __future__ import annotations

import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rho_kernel.testing import ScriptedServer, text_reply
from rho_rpc.distributions import RHO_DISTRIBUTIONS

RHO = str(Path(sys.executable).with_name("rho"))
PROMPT = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "hi"}}


def cpu_of(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes) -> float:
    """Seconds of CPU that `argv` (and what it waited for) used; stdin is closed once the
    answer to request 1 (if `stdin` holds one) has come, as rho stops when its input ends."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(stdin)
    process.stdin.flush()
    while stdin and (line := process.stdout.readline()):
        if json.loads(line).get("id") == 1:
            break
    process.stdin.close()
    process.stdout.read()
    stderr = process.stderr.read() if process.stderr is not None else b""
    returncode = process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {stderr.decode(errors='replace')}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return f"{name}: median {statistics.median(ms):.0f} ms CPU, min {ms[0]:.0f} ms"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for source in (Path(__file__).resolve().parents[1] / "packages").glob("*/src"):
        compileall.compile_dir(source, quiet=1)
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("RHO_")},
            "HOME": tmp,
            "RHO_PLUGINS": ",".join(sorted(RHO_DISTRIBUTIONS)),
        }
        ready = [RHO, "--ephemeral", "--model", "m"]
        prompt = [RHO, "--ephemeral", "--endpoint", server.chat_url, "-m", "scripted-model"]
        request = json.dumps(PROMPT).encode() + b"\n"
        cpu_of(ready, project, env, b"")  # warm the file cache
        samples: dict[str, list[float]] = {"ready": [], "prompt": []}
        for _ in range(runs):
            samples["ready"].append(cpu_of(ready, project, env, b""))
            server.add(text_reply("hello"))
            samples["prompt"].append(cpu_of(prompt, project, env, request))
        bare = [cpu_of([sys.executable, "-c", "pass"], project, env, b"") for _ in range(runs)]
    print(f"over {runs} processes each")
    print(summary("ready (start-up, then end of input)", samples["ready"]))
    print(summary("prompt (one prompt, then end of input)", samples["prompt"]))
    print(summary("bare `python -c pass`", bare))


if __name__ == "__main__":
    main()
