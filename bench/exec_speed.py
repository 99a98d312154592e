"""Benchmark: what `rho exec` costs.

Run: uv run python bench/exec_speed.py [runs]
1. exec → the first model request of `rho exec "hi"`, next to exec → `ready` of `rho`
   (target, issue 28: at most 20 ms more), and to exec → the first model request of `rho`
   given the same prompt on stdin at once.
2. A command printing 10,000 lines, run through `rho exec` rendered on a terminal (a
   pseudo-terminal, colour on) and with `--json`: how long the command takes to stream them
   (timed inside it: rho reading its output late would hold it up; target, issue 28:
   rendering adds at most 5%), and exec to exit.
"""

from __future__ import annotations

import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from rho_start import RHO, compile_workspace, finish, start, time_to_ready

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

LINES = 10_000


def time_to_first_request(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    server.add(text_reply("hello"))
    seen = len(server.requests)
    started = time.perf_counter()
    process = subprocess.Popen(
        [RHO, "exec", "--ephemeral", "-m", "m", "--endpoint", server.chat_url, "hi"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server.wait_for_requests(seen + 1, timeout=60)
    elapsed = time.perf_counter() - started
    process.wait(timeout=60)
    return elapsed


def server_first_request(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    """Exec → the first model request of `rho` (the server) given the same prompt at once."""
    server.add(text_reply("hello"))
    seen = len(server.requests)
    started = time.perf_counter()
    process = start(["--ephemeral", "-m", "m", "--endpoint", server.chat_url], cwd, env)
    assert process.stdin is not None
    process.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"hi"}}\n')
    process.stdin.flush()
    server.wait_for_requests(seen + 1, timeout=60)
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:
        pass


def long_output(
    cwd: Path, env: dict[str, str], server: ScriptedServer, terminal: bool, lines: int = LINES
) -> tuple[float, float]:
    """Exec to exit of a run whose command prints `lines` lines, and how long the command
    itself took to stream them (it waits whenever rho reads its output late)."""
    command = (
        f"s=$(date +%s%N); seq 1 {lines} | sed 's/$/ of the lines a build prints/'; "
        "e=$(date +%s%N); echo $((e - s)) > streamed.ns"
    )
    server.add(tool_call_reply("run_command", {"command": command}), text_reply("done"))
    args = [RHO, "exec", "--ephemeral", "-m", "m", "--endpoint", server.chat_url]
    args += ["--approval-mode", "auto", "run it"]
    if not terminal:
        args.insert(2, "--json")
    started = time.perf_counter()
    if terminal:
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
        )
        os.close(follower)
        reader = threading.Thread(target=_drain, args=(leader,), daemon=True)
        reader.start()
        process.wait(timeout=120)
        reader.join(timeout=10)
        os.close(leader)
    else:
        subprocess.run(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    wall = time.perf_counter() - started
    return wall, int((cwd / "streamed.ns").read_text()) / 1e9


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        env.pop("NO_COLOR", None)
        ready, first, served = [], [], []
        with ScriptedServer() as server:
            time_to_ready(project, env)
            for _ in range(runs):  # alternated, so that all meet the same machine
                ready.append(time_to_ready(project, env) * 1000)
                first.append(time_to_first_request(project, env, server) * 1000)
                served.append(server_first_request(project, env, server) * 1000)
            rendered, plain, streamed_rendered, streamed_plain = [], [], [], []
            for _ in range(runs):
                wall, streamed = long_output(project, env, server, terminal=True)
                rendered.append(wall)
                streamed_rendered.append(streamed)
                wall, streamed = long_output(project, env, server, terminal=False)
                plain.append(wall)
                streamed_plain.append(streamed)
    r, f, v = statistics.median(ready), statistics.median(first), statistics.median(served)
    print(
        f"exec → ready (rho): {r:.0f} ms; exec → first model request: rho exec {f:.0f} ms "
        f"({f - r:+.0f} ms), rho given the prompt at once {v:.0f} ms ({f - v:+.0f} ms)"
    )
    a, b = statistics.median(plain), statistics.median(rendered)
    c, d = statistics.median(streamed_plain), statistics.median(streamed_rendered)
    print(
        f"{LINES} lines of command output: streamed by the command in {c * 1000:.0f} ms with "
        f"--json, {d * 1000:.0f} ms rendered on a terminal ({(d - c) / c * 100:+.1f}%); "
        f"exec to exit {a * 1000:.0f} ms and {b * 1000:.0f} ms ({(b - a) / a * 100:+.1f}%, "
        "with the renderer's start)"
    )


if __name__ == "__main__":
    main()
