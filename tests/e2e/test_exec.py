"""`rho exec` through the real process, against the scripted model server: the reply alone
on stdout, `--json` and `--stream-json` as documented, approvals without a terminal, exit
statuses, Ctrl-C, and resuming with `-c`."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from openrpc_check import _document, drift  # type: ignore[import-not-found]
from rho_process import RHO, WAIT, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _exec(
    project: Path,
    home: Path,
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RHO, "exec", *args],
        cwd=project,
        env=rho_env(home, **(env or {})),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def _scripted(server: ScriptedServer) -> tuple[str, ...]:
    return ("--endpoint", server.chat_url, "-m", "scripted-model")


def _posts(server: ScriptedServer) -> list[Any]:
    return [r for r in server.requests if r.method == "POST"]


def test_plain_output_is_the_reply_alone_and_progress_goes_to_stderr(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "notes.txt").write_text("the notes\n")
    server.add(tool_call_reply("read_file", {"path": "notes.txt"}), text_reply("They say hi."))
    done = _exec(project, home, *_scripted(server), "--ephemeral", "read the notes")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "They say hi.\n"
    assert "rho: → read_file notes.txt" in done.stderr
    assert "rho: ✓ read_file notes.txt" in done.stderr
    assert _posts(server)[0].json["messages"][-1]["content"] == "read the notes"


def test_the_prompt_comes_from_stdin_when_the_argument_is_absent_or_dash(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(text_reply("one"), text_reply("two"))
    first = _exec(project, home, *_scripted(server), "--ephemeral", stdin="from a pipe\n")
    second = _exec(project, home, *_scripted(server), "--ephemeral", "-", stdin="dash\n")
    assert (first.returncode, first.stdout, second.stdout) == (0, "one\n", "two\n")
    sent = [p.json["messages"][-1]["content"] for p in _posts(server)]
    assert sent == ["from a pipe\n", "dash\n"]


def test_json_is_one_object_as_documented(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(tool_call_reply("list_dir", {}), text_reply("listed"))
    done = _exec(project, home, *_scripted(server), "--json", "list it")
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    result = json.loads(line)
    session = Path(result.pop("sessionPath"))
    assert session.is_file() and session.suffix == ".jsonl"
    validator, _, notifications = _document()
    assert validator.problems(notifications["agent/end"]["params"], result, "json") == []
    assert result["reply"] == "listed" and result["finishReason"] == "stop"
    assert [c["name"] for c in result["toolCalls"]] == ["list_dir"]


def test_stream_json_lines_are_the_servers_notifications(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(tool_call_reply("list_dir", {}), text_reply("listed", chunks=2))
    done = _exec(project, home, *_scripted(server), "--ephemeral", "--stream-json", "list it")
    assert done.returncode == 0, done.stderr
    lines = [line.encode() for line in done.stdout.splitlines()]
    assert drift([], lines) == []  # every line as docs/openrpc.json describes it
    methods = [json.loads(line)["method"] for line in lines]
    assert methods[0] == "agent/start" and methods[-1] == "agent/end"
    assert "tool/call" in methods and methods.count("message/delta") == 2


def test_a_call_that_would_ask_is_denied_without_a_terminal_and_the_model_told(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "a"}), text_reply("I could not.")
    )
    done = _exec(project, home, *_scripted(server), "--ephemeral", "write a")
    assert done.returncode == 0 and done.stdout == "I could not.\n"
    assert "denied write_file: no terminal to ask" in done.stderr
    told = [m for m in _posts(server)[1].json["messages"] if m["role"] == "tool"]
    assert "rho exec runs without a terminal" in told[0]["content"]
    assert not (project / "a.txt").exists()
    server.add(tool_call_reply("write_file", {"path": "a.txt", "content": "a"}), text_reply("ok"))
    allowed = _exec(
        project, home, *_scripted(server), "--ephemeral", "--approval-mode", "auto-edit", "write a"
    )
    assert allowed.returncode == 0 and (project / "a.txt").read_text() == "a"


def test_exit_statuses(server: ScriptedServer, home: Path, project: Path) -> None:
    usage = _exec(project, home, *_scripted(server), "--ephemeral", stdin="   ")
    assert usage.returncode == 2 and "the prompt is empty" in usage.stderr
    bad_flag = _exec(project, home, "--max-iterations", "0", "x")
    assert bad_flag.returncode == 2 and "--max-iterations" in bad_flag.stderr
    down = _exec(
        project,
        home,
        "--endpoint",
        "http://127.0.0.1:9/v1/chat/completions",
        "-m",
        "m",
        "--ephemeral",
        "hi",
    )
    assert down.returncode == 1 and down.stdout == "" and "127.0.0.1:9" in down.stderr
    server.add(tool_call_reply("list_dir", {}), tool_call_reply("list_dir", {}))
    capped = _exec(project, home, *_scripted(server), "--ephemeral", "--max-iterations", "1", "go")
    assert capped.returncode == 1 and "max_iterations" in capped.stderr
    for done in (usage, bad_flag, down, capped):
        assert "Traceback" not in done.stderr


def _sleepers(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "cmdline").read_bytes().decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_ctrl_c_mid_command_stops_it_and_leaves_a_resumable_session(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    mark = "987654"  # the sleep's own argument, to find its process
    server.add(tool_call_reply("run_command", {"command": f"touch started && sleep {mark}"}))
    process = subprocess.Popen(
        [RHO, "exec", *_scripted(server), "--approval-mode", "auto", "run it"],
        cwd=project,
        env=rho_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + WAIT
    while not (project / "started").exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    deadline = time.monotonic() + WAIT
    while _sleepers(f"sleep\0{mark}"):
        assert time.monotonic() < deadline, "the command's process outlived rho exec"
        time.sleep(0.02)
    server.add(text_reply("resumed"))
    again = _exec(project, home, *_scripted(server), "-c", "--json", "and now?")
    assert again.returncode == 0, again.stderr
    messages = _posts(server)[-1].json["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["run it", "and now?"]
    assert json.loads(again.stdout)["reply"] == "resumed"


def test_continue_follows_up_on_the_last_run(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(text_reply("The answer is 4."), text_reply("Twice that is 8."))
    first = _exec(project, home, *_scripted(server), "what is 2+2?")
    second = _exec(project, home, *_scripted(server), "-c", "and twice that?")
    assert (first.stdout, second.stdout) == ("The answer is 4.\n", "Twice that is 8.\n")
    last = _posts(server)[-1].json["messages"]
    assert [m["content"] for m in last if m["role"] != "system"] == [
        "what is 2+2?",
        "The answer is 4.",
        "and twice that?",
    ]
