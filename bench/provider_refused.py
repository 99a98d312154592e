"""Benchmark: how long the first prompt takes to fail when nothing listens at the endpoint.

Run: uv run python bench/provider_refused.py [runs]
Starts the real `rho` with `--endpoint` at a closed loopback port and the default retry
settings, sends one prompt and times it from the request to the response (`{error, failure}`).
Prints the median and spread, and the attempts the failure reports (0: not reported).
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def time_to_failure(cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """Seconds from the prompt to its response, and the attempts its failure reports."""
    endpoint = f"http://127.0.0.1:{closed_port()}/v1/chat/completions"
    proc = subprocess.Popen(
        [RHO, "--ephemeral", "--endpoint", endpoint, "-m", "m"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stdin is not None
    assert b'"ready"' in proc.stdout.readline()
    request = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "hi"}}
    started = time.perf_counter()
    proc.stdin.write(json.dumps(request).encode() + b"\n")
    proc.stdin.flush()
    for line in proc.stdout:
        message = json.loads(line)
        if message.get("id") == 1:
            elapsed = time.perf_counter() - started
            break
    else:
        raise RuntimeError("rho ended without answering the prompt")
    proc.stdin.close()
    proc.wait(timeout=30)
    failure = message["result"].get("failure") or {}  # rho before 0.3 sent only `error`
    return elapsed, int(failure.get("attempts", 0))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        results = [time_to_failure(project, env) for _ in range(runs)]
    samples = sorted(seconds for seconds, _ in results)
    attempts = sorted({count for _, count in results})
    print(
        f"refused local endpoint, time to report: median {statistics.median(samples) * 1000:.0f} ms "
        f"(min {samples[0] * 1000:.0f}, max {samples[-1] * 1000:.0f}; {runs} runs); "
        f"attempts {attempts}"
    )


if __name__ == "__main__":
    main()
