"""`rho exec --approve-with CMD` and `--fail-on-denial` through the real process, with real
approver programs: one that allows, one that denies (with a reason, or the bare word), and
ones that crash, hang, are killed or answer garbage — each of which denies — and the exit
status of a run refused what it needed."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from machines import path_without_bubblewrap, without_landlock  # type: ignore[import-not-found]
from openrpc_check import _document  # type: ignore[import-not-found]
from rho_process import RHO, WAIT, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: An approver: it logs the request it got (one line of JSON on stdin) to its first
#: argument, then does what `BODY` says.
APPROVER = """#!{python}
import json, os, subprocess, sys, time
request = json.loads(sys.stdin.readline())
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(request) + "\\n")
{body}
"""


def _approver(directory: Path, body: str, name: str = "approve.py") -> tuple[str, Path]:
    """`--approve-with`'s value for an approver doing `body`, and its log."""
    script, log = directory / name, directory / f"{name}.log"
    script.write_text(APPROVER.format(python=sys.executable, body=body))
    script.chmod(0o755)
    return f"{shlex.quote(str(script))} {shlex.quote(str(log))}", log


def _requests(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _exec(
    project: Path,
    home: Path,
    server: ScriptedServer,
    *args: str,
    env: dict[str, str] | None = None,
    prefix: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(prefix or []), RHO, "exec", "--endpoint", server.chat_url, "-m", "scripted-model",
         "--ephemeral", *args],
        cwd=project, env=rho_env(home, **(env or {})), input="", capture_output=True, text=True,
        timeout=WAIT,
    )  # fmt: skip


def _told(server: ScriptedServer) -> list[str]:
    """What the model was told of its calls, in the last request."""
    posts = [r for r in server.requests if r.method == "POST"]
    return [m["content"] for m in posts[-1].json["messages"] if m["role"] == "tool"]


def _write(server: ScriptedServer, name: str = "a.txt") -> None:
    server.add(
        tool_call_reply("write_file", {"path": name, "content": "hello\n"}), text_reply("done")
    )


def test_an_approver_that_allows_runs_the_call_and_gets_the_approval_request(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    command, log = _approver(tmp_path, 'print("allow")')
    _write(server)
    done = _exec(project, home, server, "--approve-with", command, "write a")
    assert done.returncode == 0, done.stderr
    assert (project / "a.txt").read_text() == "hello\n"
    [request] = _requests(log)
    assert request["tool"] == "write_file" and json.loads(request["arguments"])["path"] == "a.txt"
    assert "+hello" in request["preview"] and request["risk"] == "write"
    validator, _, notifications = _document()
    schema = notifications["approval/request"]["params"]
    assert validator.problems(schema, request, "approver") == []  # the server's own params
    assert "denied" not in done.stderr


@pytest.mark.parametrize(
    ("body", "said", "told"),
    [
        (
            'print(json.dumps({"approved": False, "message": "not in CI"}))',
            "denied write_file by the approval command: not in CI",
            "Tool call denied: not in CI.",
        ),
        ('print("deny")', "denied write_file by the approval command", "Tool call denied by user."),
    ],
    ids=["with-a-reason", "bare-word"],
)
def test_an_approver_that_denies_tells_the_model_and_fail_on_denial_exits_5(
    server: ScriptedServer,
    home: Path,
    project: Path,
    tmp_path: Path,
    body: str,
    said: str,
    told: str,
) -> None:
    command, log = _approver(tmp_path, body)
    _write(server)
    _write(server)
    plain = _exec(project, home, server, "--approve-with", command, "write a")
    assert plain.returncode == 0, plain.stderr  # denials alone do not fail a run…
    assert said in plain.stderr and _told(server) == [told]
    failing = _exec(project, home, server, "--approve-with", command, "--fail-on-denial", "go")
    assert failing.returncode == 5, failing.stderr  # … unless asked to
    assert "the run was refused what it needed: 1 call denied or blocked (write_file)" in (
        failing.stderr
    )
    assert not (project / "a.txt").exists() and len(_requests(log)) == 2


#: Approvers that fail, and what stderr says of each: every one denies.
FAILING = {
    "crash": ('sys.stderr.write("boom: no approvals today\\n"); sys.exit(3)',
              ["exited with status 3", "boom: no approvals today"]),
    "killed": ("os.kill(os.getpid(), 9)", ["was killed (signal 9)"]),
    "allow-then-fail": ('print("allow"); sys.exit(1)', ["exited with status 1"]),
    "garbage": ('print("yes please")', ["answered 'yes please', not 'allow', 'deny'"]),
    "nothing": ("pass", ["answered nothing"]),
    "string-boolean": ('print(json.dumps({"approved": "true"}))', ["not 'allow', 'deny'"]),
    "unknown-member": ('print(json.dumps({"approved": True, "updatedInput": {}}))',
                       ["answered with unknown members: updatedInput"]),
    "two-answers": ('print("allow"); print("allow")', ["answered 'allow\\nallow'"]),
    "too-long": ('sys.stdout.write("allow" + " " * 70000)', ["wrote more than 64 KiB"]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FAILING))
def test_an_approver_that_fails_denies_and_says_why(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path, case: str
) -> None:
    body, said = FAILING[case]
    command, log = _approver(tmp_path, body)
    _write(server)
    done = _exec(project, home, server, "--approve-with", command, "--fail-on-denial", "write")
    assert done.returncode == 5, done.stderr
    assert not (project / "a.txt").exists()
    assert len(_requests(log)) == 1  # it was asked, once
    assert "warning: denied write_file: the approval command (" in done.stderr
    for words in said:
        assert words in done.stderr, (words, done.stderr)
    assert _told(server)[0].startswith("Tool call denied: the approval command")
    assert "Traceback" not in done.stderr


def _alive(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "cmdline").read_bytes().decode():
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if stat != "Z":
                    found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found


def test_an_approver_that_never_answers_is_stopped_with_what_it_started(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    mark = "7654321"  # the argument of the sleep the approver leaves behind
    started = tmp_path / "started"
    body = (
        f'subprocess.Popen(["sleep", "{mark}"])\nopen("{started}", "w").close()\ntime.sleep(100000)'
    )
    command, _ = _approver(tmp_path, body)
    _write(server)
    done = _exec(
        project, home, server, "--approve-with", command, "--approve-timeout", "3", "write"
    )
    assert done.returncode == 0, done.stderr
    assert started.exists()  # the approver ran, and started its child
    assert "the approval command" in done.stderr and "did not answer within 3 s" in done.stderr
    assert not (project / "a.txt").exists()
    deadline = time.monotonic() + WAIT
    while _alive(f"sleep\0{mark}"):
        assert time.monotonic() < deadline, "the approver's child outlived its approval"
        time.sleep(0.05)


def test_a_call_that_cannot_run_never_reaches_the_approver(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    command, log = _approver(tmp_path, 'print("allow")')
    server.add(
        tool_call_reply("edit_file", {"path": "missing.txt", "edits": []}),
        tool_call_reply("edit_file", {"path": "missing.txt"}),
        tool_call_reply("run_command", {"command": "true", "timeout_secs": "x"}),
        text_reply("done"),
    )
    done = _exec(project, home, server, "--approve-with", command, "--fail-on-denial", "go")
    assert done.returncode == 0, done.stderr  # errors, not denials
    assert _requests(log) == []
    told = _told(server)
    assert "'missing.txt' not found" in told[0]
    assert told[1] == "edit_file: missing 'edits' (an array of edit objects)"
    assert told[2].startswith("run_command: invalid arguments: timeout_secs")


def test_approval_flags_that_cannot_work_are_usage_errors(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    command, _ = _approver(tmp_path, 'print("allow")')
    cases = {
        "--approve-with: the command is empty": ["--approve-with", "  "],
        "cannot split": ["--approve-with", "'unbalanced"],
        "cannot run 'no-such-approver-here': no such executable file on PATH": [
            "--approve-with",
            "no-such-approver-here --flag",
        ],
        "no such executable file": ["--approve-with", str(tmp_path / "missing.py")],
        "--approve-timeout goes with --approve-with": ["--approve-timeout", "5"],
        "--approve-timeout: give seconds above 0": [
            "--approve-with",
            command,
            "--approve-timeout",
            "0",
        ],
    }
    for said, flags in cases.items():
        done = _exec(project, home, server, *flags, "hi")
        assert done.returncode == 2 and said in done.stderr, (flags, done.stderr)
        assert "Traceback" not in done.stderr
    assert [r for r in server.requests if r.method == "POST"] == []
    help_text = _exec(project, home, server, "--help").stdout
    for flag in ("--approve-with CMD", "--approve-timeout SECONDS", "--fail-on-denial"):
        assert flag in help_text
    assert "5 with --fail-on-denial" in help_text


def test_a_relative_approver_is_found_from_where_rho_exec_started(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    _approver(project, 'print("allow")', name="approve.py")
    (project / "sub").mkdir()
    _write(server, "sub/b.txt")
    done = subprocess.run(
        [RHO, "exec", "--endpoint", server.chat_url, "-m", "m", "--ephemeral",
         "--approve-with", "../approve.py log.txt", "write"],
        cwd=project / "sub", env=rho_env(home), input="", capture_output=True, text=True,
        timeout=WAIT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (project / "sub" / "b.txt").read_text() == "hello\n"
    assert (project / "log.txt").is_file()  # it runs in the project root


def test_where_no_sandbox_works_the_approver_answers_for_the_person(
    server: ScriptedServer, home: Path, project: Path, outside_tmp: Path
) -> None:
    """Commands then need a person's approval; the approver is the user's own program, so
    it answers for them — each command, one by one — and a denial stops the command."""
    path = path_without_bubblewrap(outside_tmp / "bin")
    env = {"PATH": path}
    allowing, log = _approver(outside_tmp, 'print("allow")', name="allow.py")
    denying, _ = _approver(outside_tmp, 'print("deny")', name="deny.py")
    for command, target in ((allowing, "ran"), (denying, "refused")):
        server.add(
            tool_call_reply("run_command", {"command": f"touch {target}"}), text_reply("done")
        )
        done = _exec(
            project, home, server, "--approval-mode", "auto", "--approve-with", command, "go",
            env=env, prefix=without_landlock([]),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert (project / "ran").exists() and not (project / "refused").exists()
    [request] = _requests(log)
    assert request["sandbox"]["mode"] == "unconfined" and request["sandbox"]["alwaysAsks"]
