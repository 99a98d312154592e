"""`rho acp` ends when the editor's input ends, whatever the work it started is doing: here a
tool's thread blocked for good on a FIFO (no cancellation reaches it), through the real
process and raw ACP frames."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from rho_process import RHO, WAIT, install_plugin, plugin_env, rho_env  # type: ignore[import-not-found]
from test_end_of_input import FIFO_TOOL  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, tool_call_reply


def _frame(method: str, params: dict[str, object], id: int) -> bytes:
    return (
        json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()
        + b"\n"
    )


def test_the_end_of_input_ends_rho_acp_while_a_tools_thread_is_blocked(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    install_plugin(site, "fifo_tool", "fifo-tool", FIFO_TOOL)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    server.add(tool_call_reply("wait_on_fifo", {"fifo": str(fifo)}))
    env = rho_env(home, **plugin_env(site, "fifo-tool"))
    args = ["acp", "--endpoint", server.chat_url, "-m", "scripted-model"]
    agent = subprocess.Popen(
        [RHO, *args],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert agent.stdin is not None and agent.stdout is not None
    agent.stdin.write(_frame("initialize", {"protocolVersion": 1}, 1))
    agent.stdin.write(_frame("session/new", {"cwd": str(project), "mcpServers": []}, 2))
    agent.stdin.flush()
    answers: dict[int, dict[str, object]] = {}
    while 2 not in answers:
        message = json.loads(agent.stdout.readline())
        if "id" in message and "method" not in message:
            answers[message["id"]] = message
    session = answers[2]["result"]["sessionId"]  # type: ignore[index]
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "read it"}]}
    agent.stdin.write(_frame("session/prompt", prompt, 3))
    agent.stdin.flush()
    started = Path(f"{fifo}.started")
    deadline = time.monotonic() + WAIT
    while not started.exists():
        assert agent.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    agent.stdin.close()
    try:
        assert agent.wait(timeout=WAIT) == 0
    finally:
        agent.kill()
