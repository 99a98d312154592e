"""Closing rho's stdin ends it, whatever the work it started is doing: the running turn is
cancelled, its commands stopped (one that ignores SIGTERM too), the session ended, and the
process exits — even when a thread is blocked for good on a FIFO, in a tool or in a plugin's
hook that no cancellation reaches. Requests read before the end still get their answers."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from rho_process import (  # type: ignore[import-not-found]
    WAIT,
    RhoProcess,
    install_plugin,
    plugin_env,
    start_scripted,
)

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: A tool that says it started, then opens a FIFO nobody will ever write to: its thread
#: blocks in `open()` for good.
FIFO_TOOL = """
from pathlib import Path

from rho_kernel import tool


@tool(risk="read")
def wait_on_fifo(fifo: str) -> str:
    \"\"\"Read a FIFO.\"\"\"
    Path(fifo + ".started").touch()
    with open(fifo) as stream:
        return stream.read()


from rho_kernel import hookimpl


@hookimpl
def rho_register_tools():
    return [wait_on_fifo]
"""

#: A plugin whose prompt-start hook blocks on a FIFO in a thread: no abort reaches it.
FIFO_HOOK = """
import asyncio
import os
from pathlib import Path

from rho_kernel import hookimpl


def _block():
    fifo = os.environ["RHO_TEST_FIFO"]
    Path(fifo + ".started").touch()
    with open(fifo) as stream:
        return stream.read()


@hookimpl
async def rho_prompt_starting(runtime):
    await asyncio.to_thread(_block)
    return None
"""


def _wait_file(path: Path, rho: RhoProcess) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert rho.proc.poll() is None, rho.stderr_text()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def _processes(mark: str, rho: RhoProcess) -> list[int]:
    """The processes whose command line holds `mark` (waiting until one does)."""
    deadline = time.monotonic() + WAIT
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and mark in (entry / "cmdline").read_bytes().decode():
                    found.append(int(entry.name))
            except OSError:
                continue
        if found:
            return found
        assert rho.proc.poll() is None, rho.stderr_text()
        assert time.monotonic() < deadline, f"no process runs {mark!r}"
        time.sleep(0.02)


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + WAIT
    while alive := [pid for pid in pids if _running(pid)]:
        assert time.monotonic() < deadline, f"processes {alive} outlived rho"
        time.sleep(0.02)


def _session_end(home: Path) -> dict[str, Any]:
    [session] = (home / ".rho" / "sessions").glob("*/*.jsonl")
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    return entries[-1]["payload"]


def _ended(rho: RhoProcess) -> int:
    """Close stdin and wait for rho to exit; its status."""
    rho.close_stdin()
    return rho.proc.wait(timeout=WAIT)


@pytest.mark.usefixtures("run_anyway")
def test_closing_stdin_cancels_a_turn_blocked_in_a_command_that_ignores_sigterm(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    mark = "765432"
    command = f"trap '' TERM; touch started; sleep {mark}"
    server.add(tool_call_reply("run_command", {"command": command}))
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    prompt = rho.request("prompt", {"message": "run it"})
    _wait_file(project / "started", rho)
    sleepers = _processes(f"sleep\0{mark}", rho)
    assert _ended(rho) == 0
    assert rho.finish() == 0
    _wait_gone(sleepers)
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"
    assert "result" in next(m for m in rho.seen if m.get("id") == prompt)
    assert _session_end(home) == {"SessionEnded": {"reason": "transport EOF"}}
    assert len(server.requests) == 1  # no model request after the end of input


def test_closing_stdin_ends_rho_while_a_tools_thread_is_blocked_on_a_fifo(
    start_rho, server: ScriptedServer, project: Path, home: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    install_plugin(site, "fifo_tool", "fifo-tool", FIFO_TOOL)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    server.add(tool_call_reply("wait_on_fifo", {"fifo": str(fifo)}))
    rho = start_scripted(start_rho, server, env=plugin_env(site, "fifo-tool"))
    rho.request("prompt", {"message": "read it"})
    _wait_file(Path(f"{fifo}.started"), rho)
    assert _ended(rho) == 0
    assert rho.finish() == 0
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"
    assert _session_end(home) == {"SessionEnded": {"reason": "transport EOF"}}


def test_closing_stdin_ends_rho_when_a_hook_blocks_where_no_abort_reaches(
    start_rho, server: ScriptedServer, project: Path, home: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    install_plugin(site, "fifo_hook", "fifo-hook", FIFO_HOOK)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    env = {**plugin_env(site, "fifo-hook"), "RHO_TEST_FIFO": str(fifo)}
    rho = start_scripted(start_rho, server, env=env)
    prompt = rho.request("prompt", {"message": "hi"})
    _wait_file(Path(f"{fifo}.started"), rho)
    assert _ended(rho) == 0  # after the grace (rho_kernel.frontend.SHUTDOWN_GRACE)
    assert rho.finish() == 0
    answer = next(m for m in rho.seen if m.get("id") == prompt)
    assert answer["error"]["code"] == -32603
    assert "rho is shutting down" in answer["error"]["message"]
    assert _session_end(home) == {"SessionEnded": {"reason": "transport EOF"}}
    assert server.requests == []


def test_requests_read_before_the_end_are_answered_but_no_further_turn_starts(
    start_rho, server: ScriptedServer, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    install_plugin(site, "fifo_tool", "fifo-tool", FIFO_TOOL)
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    server.add(tool_call_reply("wait_on_fifo", {"fifo": str(fifo)}), text_reply("not sent"))
    rho = start_scripted(start_rho, server, env=plugin_env(site, "fifo-tool"))
    first = rho.request("prompt", {"message": "read it"})
    _wait_file(Path(f"{fifo}.started"), rho)
    state = rho.request("getState")
    second = rho.request("prompt", {"message": "and then"})
    sessions = rho.request("listSessions")
    assert "result" in rho.call("listCommands")  # answered at once: all the above were read
    assert _ended(rho) == 0
    assert rho.finish() == 0
    answers = {m["id"]: m for m in rho.seen if "id" in m and "method" not in m}
    assert "result" in answers[first] and "result" in answers[state]
    assert "result" in answers[sessions]
    assert answers[second]["error"]["code"] == -32603
    assert "input ended before this prompt started" in answers[second]["error"]["message"]
    ends = [m["params"] for m in rho.seen if m.get("method") == "agent/end"]
    assert [end["finishReason"] for end in ends] == ["cancelled"]
    assert len(server.requests) == 1


def _started_with_home(home: Path) -> list[int]:
    """The processes still running with `home` as their HOME: what rho started."""
    wanted = f"HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and wanted in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if _running(pid)]


@pytest.mark.parametrize("config", [".gitconfig", ".config/git/config"])
def test_a_fifo_as_the_users_git_config_neither_hangs_rho_nor_outlives_it(
    start_rho, server: ScriptedServer, home: Path, config: str
) -> None:  # type: ignore[no-untyped-def]
    (home / config).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(home / config)  # a `git` that reads it blocks until someone writes to it
    server.add(text_reply("hello"))
    rho = start_scripted(start_rho, server)
    rho.request("prompt", {"message": "hi"})
    assert _ended(rho) == 0
    assert rho.finish() == 0
    deadline = time.monotonic() + WAIT
    while left := _started_with_home(home):  # no git rho started is left blocked
        assert time.monotonic() < deadline, f"processes {left} outlived rho"
        time.sleep(0.02)
