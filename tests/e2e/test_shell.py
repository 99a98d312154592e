"""run_command and wait_for through the real `rho` process: live output, timeouts that kill
the process tree, abort, the denylist, the output cap and the sandboxed cwd."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def gone(pid: int) -> bool:
    """Wait (bounded) for `pid` to die."""
    deadline = time.monotonic() + 60
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def pids_with(token: str) -> list[int]:
    """Live processes whose command line contains `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes() and alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def all_gone(token: str) -> bool:
    """Wait (bounded) until no process's command line contains `token`."""
    deadline = time.monotonic() + 60
    while pids_with(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


SANDBOX_OFF = '[sandbox]\nmode = "off"\n'


@pytest.fixture(params=["confined", "off"])
def sandbox_mode(request: pytest.FixtureRequest) -> str:
    """Runs a test with commands confined (the default) and with `[sandbox] mode = "off"`."""
    return str(request.param)


def run_tool(rho: RhoProcess, name: str = "run_command") -> dict[str, Any]:
    """Send a prompt, approve the call, return the `tool/result` params."""
    rho.request("prompt", {"message": "go"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    return rho.notification("tool/result")["params"]


def refused_unasked(rho: RhoProcess, name: str = "run_command") -> dict[str, Any]:
    """Send a prompt whose call cannot run; return its `tool/result` params, checking that
    nobody was asked to approve it."""
    before = len(rho.seen)
    rho.request("prompt", {"message": "go"})
    result = rho.notification("tool/result")["params"]
    assert "approval/request" not in [m.get("method") for m in rho.seen[before:]]
    return result


def start(
    shared_rho: Any, args: dict[str, Any], name: str = "run_command", sandbox: str = "confined"
) -> SharedRho:
    """The module's rho for `sandbox` (a rho per test cost ~0.7 s of CPU), fresh for the
    test, with the call scripted."""
    shared = shared_rho("--ephemeral", user_config=SANDBOX_OFF if sandbox == "off" else None)
    shared.server.add(tool_call_reply(name, args), text_reply("done"))
    return shared


def test_live_output_arrives_before_the_result(shared_rho) -> None:  # type: ignore[no-untyped-def]
    command = "for i in 1 2 3; do echo line$i; sleep 0.3; done; echo warn >&2"
    rho = start(shared_rho, {"command": command}).rho
    result = run_tool(rho)
    assert result["output"] == "exit_code: 0\nline1\nline2\nline3\n\nstderr:\nwarn\n"
    methods = [m.get("method") for m in rho.seen]
    outputs = [m["params"] for m in rho.seen if m.get("method") == "tool/output"]
    assert outputs and methods.index("tool/output") < methods.index("tool/result")
    assert all(o["callId"] == result["callId"] and o["name"] == "run_command" for o in outputs)
    stdout = "".join(o["text"] for o in outputs if o["stream"] == "stdout")
    stderr = "".join(o["text"] for o in outputs if o["stream"] == "stderr")
    assert (stdout, stderr) == ("line1\nline2\nline3\n", "warn\n")
    assert len([o for o in outputs if o["stream"] == "stdout"]) >= 2  # live, not all at the end


def test_live_output_of_a_big_command_is_whole_lines_with_the_gap_marked(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho = start(shared_rho, {"command": "seq 1 200000"}).rho
    result = run_tool(rho)
    assert result["is_error"] is False
    methods = [m.get("method") for m in rho.seen]
    outputs = [m["params"] for m in rho.seen if m.get("method") == "tool/output"]
    last_output = len(methods) - 1 - methods[::-1].index("tool/output")
    assert last_output < methods.index("tool/result")  # the end came before the result
    assert all(o["stream"] == "stdout" and len(o["text"]) <= 16384 for o in outputs)
    assert all(o["text"].endswith("\n") for o in outputs)  # whole lines, every time
    expected, gaps = 1, 0
    for line in "".join(o["text"] for o in outputs).splitlines():
        if line.startswith("[… "):  # exactly where lines were skipped, saying which
            count, chars = (int(word.strip("(")) for word in line.split()[1:4:2])
            assert line == f"[… {count} lines ({chars} characters) skipped …]"
            assert chars == sum(len(f"{n}\n") for n in range(expected, expected + count))
            expected, gaps = expected + count, gaps + 1
            continue
        assert line == str(expected)
        expected += 1
    assert expected == 200001 and gaps >= 1  # through the last line, the gaps marked


def test_a_timeout_kills_the_process_tree(shared_rho, sandbox_mode: str) -> None:  # type: ignore[no-untyped-def]
    token = f"300.{secrets.randbelow(10**9)}"
    command = f"sleep {token} & sleep {token} >/dev/null 2>&1 & sleep {token}"
    rho = start(shared_rho, {"command": command, "timeout_secs": 1}, sandbox=sandbox_mode).rho
    result = run_tool(rho)
    assert result["is_error"] is True
    assert "[run_command: timed out after 1s;" in result["output"]
    assert all_gone(token)


def test_abort_kills_a_running_command(shared_rho, sandbox_mode: str) -> None:  # type: ignore[no-untyped-def]
    token = f"300.{secrets.randbelow(10**9)}"
    command = f"bash -c 'sleep {token}; true' & sleep {token} & wait"
    rho = start(shared_rho, {"command": command}, sandbox=sandbox_mode).rho
    prompt = rho.request("prompt", {"message": "go"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    rho.notification("state/change")
    while len(pids_with(token)) < 3:  # the inner bash, its sleep and the outer sleep
        time.sleep(0.05)
    rho.call("abort")
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    assert all_gone(token)


def test_a_denied_command_is_an_error_naming_the_rule(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared = start(shared_rho, {"command": "touch ran && bash -c 'wget -q https://x'"})
    rho, project = shared.rho, shared.project
    result = refused_unasked(rho)  # the policy refuses it: nobody is asked
    assert result["is_error"] is True
    assert result["output"] == (
        "run_command: command denied: 'wget' is on the denylist (in: bash -c 'wget -q https://x')"
    )
    assert not (project / "ran").exists()


def test_output_cap_keeps_head_and_tail(start_rho, server: ScriptedServer, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("[shell]\nmax_output_bytes = 2048\n")
    server.add(
        tool_call_reply("run_command", {"command": "echo BEGIN; seq 1 100000; echo END"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    output, note = run_tool(rho)["output"].rsplit("\n", 1)
    assert output.startswith("exit_code: 0\nBEGIN\n1\n2\n") and output.endswith("100000\nEND\n")
    assert "elided …]" in output and len(output) < 2600
    assert note.startswith("[run_command: stdout was 588905 bytes; rho keeps at most 2048 ")


def test_cwd_outside_the_project_is_refused(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared = start(shared_rho, {"command": "touch ran", "cwd": "../"})
    result = refused_unasked(shared.rho)
    assert result["is_error"] is True and result["output"].startswith("run_command: cwd '../'")
    assert not list(shared.project.parent.rglob("ran"))  # the project, its HOME, their folder


def test_wait_for_polls_until_a_regex_matches(shared_rho) -> None:  # type: ignore[no-untyped-def]
    command = "echo x >> polls; test $(wc -l < polls) -ge 2 && echo 'Build FINISHED'"
    args = {
        "command": command,
        "until": "regex: build finished",
        "poll_secs": 1,
        "timeout_secs": 60,
    }
    shared = start(shared_rho, args, "wait_for")
    (shared.project / "polls").unlink(missing_ok=True)
    rho = shared.rho
    result = run_tool(rho, "wait_for")
    assert result["is_error"] is False
    assert result["output"].startswith("Build FINISHED\n[wait_for: 2 polls, ")


TEXT_AS_CODE = [
    ("trap 'curl -s http://127.0.0.1:9/' EXIT", "'curl' is on the denylist"),
    ("shopt -s expand_aliases\nalias c=curl\nc http://127.0.0.1:9/", "expand_aliases"),
    ("bash <(echo 'curl http://127.0.0.1:9/')", "is the output of a command"),
    ("source <(echo 'curl http://127.0.0.1:9/')", "is the output of a command"),
    ("hash -p /usr/bin/curl c; c http://127.0.0.1:9/", "'hash -p' makes a name run"),
    ("git -c alias.x='!curl http://127.0.0.1:9/' x", "'curl' is on the denylist"),
    ("X=/nonexistent-rho-dir; rm -rf ${X:-/}", "would delete the file system root"),
]


def test_text_that_becomes_code_is_refused_and_nothing_runs(shared_rho) -> None:  # type: ignore[no-untyped-def]
    # One rho runs every case in turn, each a prompt of its own (a rho per case cost ~0.7 s
    # of CPU each).
    shared = shared_rho("--ephemeral")
    rho, server, project = shared.rho, shared.server, shared.project
    for line, _ in TEXT_AS_CODE:
        server.add(tool_call_reply("run_command", {"command": f"touch ran\n{line}"}))
        server.add(text_reply("done"))
    for line, why in TEXT_AS_CODE:
        before = len(rho.seen)
        prompt = rho.request("prompt", {"message": "go"})
        result = rho.notification("tool/result")["params"]
        assert "approval/request" not in [m.get("method") for m in rho.seen[before:]], line
        assert result["is_error"] is True, line
        assert result["output"].startswith("run_command: command denied: "), line
        assert why in result["output"], line
        rho.wait_for(lambda m, prompt=prompt: m.get("id") == prompt and "method" not in m)
        assert not (project / "ran").exists(), line


def test_a_repeated_run_command_is_nudged_with_the_fresh_process_advice(shared_rho) -> None:  # type: ignore[no-untyped-def]
    # run_command declares `fresh_process_per_call`: the stuck-loop nudge says so.
    shared = shared_rho("--ephemeral", user_config="[agent]\nstuck_loop_threshold = 2\n")
    call = {"command": "cd /nowhere-at-all; echo same"}
    shared.server.add(
        tool_call_reply("run_command", call), tool_call_reply("run_command", call), text_reply("ok")
    )
    rho = shared.rho
    rho.request("prompt", {"message": "go"})
    results = []
    for _ in range(2):
        rho.answer_approval(rho.notification("approval/request")["params"])
        results.append(rho.notification("tool/result")["params"])
    assert not results[0]["output"].startswith("STUCK LOOP DETECTED:")
    nudge = results[1]["output"]
    assert nudge.startswith("STUCK LOOP DETECTED: `run_command` was called 2 times")
    assert nudge.endswith(
        " Each run_command starts a fresh process in the project root: use the `cwd` "
        "parameter or full paths instead of `cd`, and edit files before re-running."
    )
