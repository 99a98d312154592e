"""Benchmark: what `rho acp` costs next to rho's JSON-RPC server.

Run: uv run python bench/acp_speed.py [runs]
1. exec → the answer to `initialize` of `rho acp`, next to exec → `ready` of `rho` (target,
   issue 26: within 20 ms of it).
2. A reply streamed in 2,000 chunks, prompt to response, through each front end: the
   difference per chunk is what ACP's `agent_message_chunk` costs over rho's `message/delta`
   (target: at most 0.2 ms).
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

from rho_start import RHO, compile_workspace, finish, line_with, start, time_to_ready, until_ready

from rho_kernel.testing import ScriptedServer, text_reply

CHUNKS = 2000


def _send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _acp(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """`rho acp --ephemeral *args` with pipes on stdin and stdout."""
    return subprocess.Popen(
        [RHO, "acp", "--ephemeral", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def time_to_initialize(cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    process = _acp(cwd, env, "-m", "bench-model")
    _send(
        process,
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
    )
    line_with(process, b'"id":1')
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def rpc_stream(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    process = start(["--ephemeral", "-m", "m", "--endpoint", server.chat_url], cwd, env)
    until_ready(process)
    server.add(text_reply("x " * CHUNKS, chunks=CHUNKS))
    started = time.perf_counter()
    _send(process, {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "go"}})
    line_with(process, b'"id":1')
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def acp_stream(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    process = _acp(cwd, env, "-m", "m", "--endpoint", server.chat_url)
    _send(
        process,
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
    )
    line_with(process, b'"id":1')
    _send(
        process,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(cwd), "mcpServers": []},
        },
    )
    session = json.loads(line_with(process, b'"id":2'))["result"]["sessionId"]
    server.add(text_reply("x " * CHUNKS, chunks=CHUNKS))
    started = time.perf_counter()
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    _send(process, {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    line_with(process, b'"id":3')
    elapsed = time.perf_counter() - started
    finish(process)
    return elapsed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        env = {**os.environ, "HOME": tmp}
        ready, initialized = [], []
        time_to_ready(project, env)
        for _ in range(runs):  # alternated, so that both meet the same machine
            ready.append(time_to_ready(project, env) * 1000)
            initialized.append(time_to_initialize(project, env) * 1000)
        rpc, acp = [], []
        with ScriptedServer() as server:
            for _ in range(runs):
                rpc.append(rpc_stream(project, env, server) * 1000)
                acp.append(acp_stream(project, env, server) * 1000)
    r, i = statistics.median(ready), statistics.median(initialized)
    print(
        f"exec → ready (rho): median {r:.0f} ms; exec → initialize answered (rho acp): median {i:.0f} ms ({i - r:+.0f} ms)"
    )
    a, b = statistics.median(rpc), statistics.median(acp)
    print(
        f"a reply in {CHUNKS} chunks: JSON-RPC {a:.0f} ms, ACP {b:.0f} ms: "
        f"{(b - a) / CHUNKS:+.3f} ms per chunk"
    )


if __name__ == "__main__":
    main()
