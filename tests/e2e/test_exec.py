"""`rho exec` through the real process, against the scripted model server: the reply alone
on stdout, `--json` and `--stream-json` as documented, approvals without a terminal, exit
statuses, Ctrl-C, resuming with `-c`, and the rendered run on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

import pyte
import pytest
from openrpc_check import _document, drift  # type: ignore[import-not-found]
from rho_process import RHO, WAIT, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import (
    ErrorReply,
    HangReply,
    ScriptedServer,
    text_reply,
    tool_call_reply,
)


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


def test_json_gives_each_calls_output_as_the_model_was_given_it(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    secret = "sk-ant-api03-" + "Zq9x" * 16
    (project / "notes.txt").write_text(f"the notes\nkey = {secret}\n")
    server.add(
        tool_call_reply("read_file", {"path": "notes.txt"}),
        tool_call_reply("read_file", {"path": "missing.txt"}),
        text_reply("read"),
    )
    done = _exec(project, home, *_scripted(server), "--ephemeral", "--json", "read")
    assert done.returncode == 0, done.stderr
    read, missing = json.loads(done.stdout)["toolCalls"]
    told = [m["content"] for m in _posts(server)[-1].json["messages"] if m["role"] == "tool"]
    assert read["outcome"]["kind"] == "success" and read["outcome"]["output"] == told[0]
    assert "the notes" in told[0] and "[REDACTED]" in told[0] and secret not in done.stdout
    assert missing["outcome"] == {"kind": "error", "output": told[1]}


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


@pytest.mark.usefixtures("run_anyway")
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


#: The pseudo-terminal's size: tall enough that nothing scrolls away in these tests.
COLUMNS, ROWS = 120, 300


class Terminal:
    """`rho exec` on a pseudo-terminal (stdin, stdout and stderr), read as it writes."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.process = subprocess.Popen(
            [RHO, "exec", *args], cwd=cwd, env=env, stdin=follower, stdout=follower,
            stderr=follower, start_new_session=True,
        )  # fmt: skip
        os.close(follower)
        self.leader = leader
        self.raw = b""

    def read_until(self, wanted: str) -> str:
        """Read until the screen's text holds `wanted` (or the process ends)."""
        deadline = time.monotonic() + WAIT
        while wanted not in self.text():
            assert time.monotonic() < deadline, self.text()[-2000:]
            ready, _, _ = select.select([self.leader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(self.leader, 1 << 16)
                except OSError:  # the process ended and closed the terminal
                    break
                if not chunk:
                    break
                self.raw += chunk
        return self.text()

    def type(self, text: str) -> None:
        os.write(self.leader, text.encode())

    def finish(self) -> int:
        self.read_until("\0never\0")
        os.close(self.leader)
        return self.process.wait(timeout=WAIT)

    def text(self) -> str:
        """What the terminal shows now (a terminal emulator replays what rho wrote)."""
        screen = pyte.Screen(COLUMNS, ROWS)
        stream = pyte.ByteStream(screen)
        stream.feed(self.raw)
        return "\n".join(line.rstrip() for line in screen.display).rstrip()


def test_on_a_terminal_the_run_is_rendered_and_an_approval_is_typed(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "a.txt").write_text("old line\n")
    server.add(
        tool_call_reply("read_file", {"path": "a.txt"}),
        tool_call_reply("write_file", {"path": "a.txt", "content": "new line\n"}),
        text_reply("# Done\n\nThe file now says **new line**."),
    )
    env = rho_env(home, NO_COLOR="1", TERM="xterm-256color")
    terminal = Terminal([*_scripted(server), "--ephemeral", "change a.txt"], project, env)
    question = terminal.read_until("[y] yes")
    assert "-old line" in question and "+new line" in question  # the preview, a diff
    assert "Allow? [y/n/m/1-4]" in terminal.read_until("Allow?")
    terminal.type("y\n")
    assert terminal.finish() == 0
    screen = terminal.text()
    assert "✓ read_file a.txt" in screen and "✓ write_file a.txt" in screen
    assert "The file now says new line." in screen  # Markdown rendered: no ** left
    assert "**" not in screen.split("✓ write_file a.txt", 1)[1]
    assert re.search(r"\d+ iterations · \d+ in / \d+ out tokens", screen)
    assert not re.search(r"\x1b\[[0-9;]*m", terminal.raw.decode(errors="replace"))  # NO_COLOR
    assert (project / "a.txt").read_text() == "new line\n"


def test_on_a_terminal_a_numbered_scope_is_remembered_for_the_edits_it_covers(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "b.txt").write_text("old\n")
    edit = {"path": "src/b.txt", "edits": [{"old_text": "old", "new_text": "new"}]}
    server.add(
        tool_call_reply("write_file", {"path": "src/a.txt", "content": "a\n"}),
        tool_call_reply("edit_file", edit),
        tool_call_reply("write_file", {"path": "c.txt", "content": "c\n"}),
        text_reply("done"),
    )
    env = rho_env(home, NO_COLOR="1", TERM="xterm-256color")
    terminal = Terminal([*_scripted(server), "--ephemeral", "edit src"], project, env)
    question = terminal.read_until("Allow? [y/n/m/1-6]")
    assert "[2] Allow edits in src/ for this session  edit(src/**)" in question
    assert "[6] Always allow edits in this project  edit(**)" in question
    terminal.type("2\n")  # the edit_file in src/ runs by the rule; c.txt asks again
    assert "[1] Allow edits to c.txt for this session" in terminal.read_until("[y/n/m/1-4]")
    terminal.type("n\n")
    assert terminal.finish() == 0
    assert (project / "src" / "a.txt").read_text() == "a\n"
    assert (project / "src" / "b.txt").read_text() == "new\n"
    assert not (project / "c.txt").exists()


#: HOME's config for a retry at once: a retry budget of 1, 1 ms later.
FAST_RETRY = "[agent]\nretry_budget = 1\ninitial_backoff_ms = 1\n"


def test_a_retry_is_said_once_on_stderr_and_once_on_a_terminal(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text(FAST_RETRY)
    server.add(ErrorReply(503), text_reply("first"), ErrorReply(503), text_reply("second"))
    plain = _exec(project, home, *_scripted(server), "--ephemeral", "hi")
    assert plain.returncode == 0 and plain.stdout == "first\n", plain.stderr
    said = [line for line in plain.stderr.splitlines() if "retry" in line]
    assert len(said) == 1 and said[0].startswith("rho: ↻ retry 1/1 in 0.0 s: "), plain.stderr
    env = rho_env(home, NO_COLOR="1", TERM="xterm-256color")
    terminal = Terminal([*_scripted(server), "--ephemeral", "hi"], project, env)
    assert terminal.finish() == 0
    screen = terminal.text()
    assert "second" in screen and screen.count("retry") == 1, screen


def test_colour_is_on_for_a_terminal_without_no_color(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(text_reply("plain **bold** reply"))
    env = {k: v for k, v in rho_env(home, TERM="xterm-256color").items() if k != "NO_COLOR"}
    terminal = Terminal([*_scripted(server), "--ephemeral", "hi"], project, env)
    assert terminal.finish() == 0
    assert re.search(r"\x1b\[[0-9;]*m", terminal.raw.decode(errors="replace"))
    assert "plain bold reply" in terminal.text()


def test_undo_returns_the_files_to_before_the_last_run(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    nothing = _exec(project, home, "--undo")
    assert nothing.returncode == 2 and "no previous session" in nothing.stderr
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[checkpoints]\nenabled = false\n")
    server.add(text_reply("hello"))
    assert _exec(project, home, *_scripted(server), "hi").returncode == 0
    off = _exec(project, home, "--undo")
    assert off.returncode == 1 and "checkpoints are off" in off.stderr
    (home / ".rho" / "config.toml").unlink()  # on by default
    (project / "a.txt").write_text("before\n")
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "after\n"}),
        tool_call_reply("write_file", {"path": "new.txt", "content": "new\n"}),
        text_reply("done"),
    )
    run = _exec(project, home, *_scripted(server), "--approval-mode", "auto-edit", "change")
    assert run.returncode == 0 and (project / "a.txt").read_text() == "after\n"
    undone = _exec(project, home, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert sorted(undone.stdout.splitlines()) == [
        "deleted new.txt (added since)",
        "restored a.txt (modified since)",
    ]
    assert (project / "a.txt").read_text() == "before\n" and not (project / "new.txt").exists()
    usage = _exec(project, home, "--undo", "a prompt")
    assert usage.returncode == 2 and "--undo takes no prompt" in usage.stderr


# ── SIGTERM ──────────────────────────────────────────────────────────────────


def _pids_of(mark: str) -> list[int]:
    """The processes whose command line holds `mark` (waiting until one does)."""
    deadline = time.monotonic() + WAIT
    while not (found := _sleepers(mark)):
        assert time.monotonic() < deadline, f"no process runs {mark!r}"
        time.sleep(0.02)
    return found


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + WAIT
    while alive := [pid for pid in pids if _running(pid)]:
        assert time.monotonic() < deadline, f"processes {alive} outlived rho exec"
        time.sleep(0.02)


def _entries(session: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.read_text().splitlines()]


def _started_exec(project: Path, home: Path, args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [RHO, "exec", *args],
        cwd=project,
        env=rho_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_file(path: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


@pytest.mark.usefixtures("run_anyway")
def test_sigterm_mid_command_stops_it_flushes_the_session_and_exits_143(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    mark = "876543"  # a command that ignores SIGTERM: stopping it takes SIGKILL
    command = f"trap '' TERM; touch started; sleep {mark}"
    server.add(tool_call_reply("run_command", {"command": command}))
    args = [*_scripted(server), "--approval-mode", "auto", "--json", "run it"]
    process = _started_exec(project, home, args)
    _wait_file(project / "started", process)
    sleepers = _pids_of(f"sleep\0{mark}")
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=WAIT)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr
    _wait_gone(sleepers)
    result = json.loads(stdout)  # the run's object, as for any run that ended
    assert result["finishReason"] == "cancelled"
    session = Path(result["sessionPath"])
    entries = _entries(session)  # every line whole
    assert entries[-1]["payload"] == {"SessionEnded": {"reason": "signal"}}
    server.add(text_reply("resumed"))
    again = _exec(project, home, *_scripted(server), "--session", str(session), "--json", "and?")
    assert again.returncode == 0, again.stderr
    messages = _posts(server)[-1].json["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["run it", "and?"]
    [call] = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    [answer] = [m for m in messages if m["role"] == "tool"]
    assert answer["tool_call_id"] == call["tool_calls"][0]["id"]


def test_sigterm_while_the_model_answers_exits_143_in_every_output(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    for output in ([], ["--json"], ["--stream-json"]):
        asked = len(_posts(server))
        server.add(HangReply())
        process = _started_exec(project, home, [*_scripted(server), *output, "wait"])
        deadline = time.monotonic() + WAIT
        while len(_posts(server)) == asked:  # the model is asked, and answers nothing
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=WAIT)
        assert process.returncode == 143, stderr
        assert "Traceback" not in stderr
        if output:
            last = json.loads(stdout.splitlines()[-1])
            end = last if output == ["--json"] else last["params"]
            assert end["finishReason"] == "cancelled"


# ── what the model writes reaches the terminal as text ──────────────────────

#: A reply that would write the clipboard (OSC 52, ended by BEL and by ST), set the title,
#: clear the screen, reset the terminal, run a DCS string, use the 8-bit CSI and OSC, and
#: reverse the text's order — each around plain words that must stay.
HOSTILE_REPLY = (
    "one\x1b]52;c;ZWNobyBQV05FRA==\x07 two\x1b]52;p;ZWNobyBQV05FRA==\x1b\\ three"
    "\x1b]0;pwned title\x07 four\x1b[2J\x1b[H five\x1bc six\x1bPqpwned\x1b\\ seven"
    "\x9b2J eight\x9d0;pwned\x9c nine\u202eenin\u202c ten\r\x07\x08 eleven\n"
)
SHOWN_REPLY = "one two three four five six seven eight nineenin ten eleven\n"
#: What a terminal could obey: controls but newline and tab, C1, bidi overrides/isolates.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_plain_output_has_no_control_sequences_even_split_across_deltas(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    for chunks in (1, 7, len(HOSTILE_REPLY)):  # whole, in pieces, one character at a time
        server.add(text_reply(HOSTILE_REPLY, chunks=chunks))
        done = _exec(project, home, *_scripted(server), "--ephemeral", "hi")
        assert done.returncode == 0, done.stderr
        assert done.stdout == SHOWN_REPLY
        assert not UNSAFE.search(done.stderr)


def test_json_outputs_keep_the_text_as_it_was_written_and_escaped(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(text_reply(HOSTILE_REPLY, chunks=5), text_reply(HOSTILE_REPLY, chunks=5))
    whole = _exec(project, home, *_scripted(server), "--ephemeral", "--json", "hi")
    stream = _exec(project, home, *_scripted(server), "--ephemeral", "--stream-json", "hi")
    for done in (whole, stream):
        assert done.returncode == 0, done.stderr
        assert not UNSAFE.search(done.stdout)  # JSON's escapes, e.g. \u001b and \u009b
    assert json.loads(whole.stdout)["reply"] == HOSTILE_REPLY
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    deltas = [m["params"]["delta"] for m in lines if m["method"] == "message/delta"]
    assert "".join(deltas) == HOSTILE_REPLY and len(deltas) == 5


def test_stderr_carries_no_control_sequence_from_a_tool_or_the_provider(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    command = r"printf '\033]52;c;cHduZWQ=\007\033[31mboom\033[0m\033]0;title\007\n'; exit 3"
    server.add(tool_call_reply("run_command", {"command": command}), text_reply("ok"))
    failed = _exec(
        project, home, *_scripted(server), "--ephemeral", "--approval-mode", "auto", "go"
    )
    assert failed.returncode == 0, failed.stderr
    assert not UNSAFE.search(failed.stderr)
    assert "boom" in failed.stderr and "\\x1b" not in failed.stderr  # shown as a terminal would
    refused = {"error": {"message": "bad\x1b]52;c;cHduZWQ=\x07 request\x1b[2J\x9b1m"}}
    server.add(ErrorReply(400, refused))
    provider = _exec(project, home, *_scripted(server), "--ephemeral", "go")
    assert provider.returncode == 1
    assert "bad request" in provider.stderr and not UNSAFE.search(provider.stderr)


def test_on_a_terminal_the_reply_is_shown_without_its_control_sequences(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(text_reply(HOSTILE_REPLY, chunks=len(HOSTILE_REPLY)))
    env = {k: v for k, v in rho_env(home, TERM="xterm-256color").items() if k != "NO_COLOR"}
    terminal = Terminal([*_scripted(server), "--ephemeral", "hi"], project, env)
    assert terminal.finish() == 0
    raw = terminal.raw.decode(errors="replace")
    assert re.search(r"\x1b\[[0-9;]*m", raw)  # rho's own colours stay
    for sequence in ("\x1b]", "\x1bP", "\x1b[2J", "\x1bc", "\u009b", "\u009d", "\u202e"):
        assert sequence not in raw, repr(sequence)
    shown = terminal.text()
    assert "one two three four five six seven eight" in shown
    assert "52;" not in shown and "pwned" not in shown and "\\x1b" not in shown
