"""Session files through the real `rho` process: privacy, no empty files, no lost lines,
open tool calls closed on resume, and one writer per session."""

from __future__ import annotations

import json
import os
import signal
import stat
from pathlib import Path

import pytest
from rho_process import RhoProcess, start_scripted, warnings  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


@pytest.fixture(autouse=True)
def _without_checkpoints(home: Path) -> None:
    """These tests count a session's entries exactly: no checkpoint entries among them
    (tests/e2e/test_checkpoints.py covers those)."""
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[checkpoints]\nenabled = false\n")


CANCELLED = "Tool call cancelled."


def _session_path(rho: RhoProcess) -> Path:
    return Path(rho.call("getState")["result"]["sessionPath"])


def _conversation(start_rho, server: ScriptedServer, *extra: str) -> tuple[RhoProcess, Path]:  # type: ignore[no-untyped-def]
    """A running rho whose session file exists (one prompt answered)."""
    server.add(text_reply("answer"))
    rho = start_scripted(start_rho, server, *extra)
    rho.call("prompt", {"message": "question"})
    return rho, _session_path(rho)


def _kill(rho: RhoProcess) -> None:
    os.kill(rho.proc.pid, signal.SIGKILL)
    rho.proc.wait(timeout=10)


def _session_files(home: Path) -> list[Path]:
    return sorted(home.rglob("*.jsonl"))


# ── No empty sessions ─────────────────────────────────────────────────────────


def test_a_start_without_a_prompt_and_new_sessions_without_prompts_write_no_file(
    start_rho, server: ScriptedServer, home: Path
) -> None:  # type: ignore[no-untyped-def]
    # One rho for both (a rho each cost ~0.7 s of CPU): neither the session it starts with
    # nor the two `newSession` makes without a prompt leaves a file.
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model")
    ready = rho.read()["params"]
    path = Path(ready["sessionPath"])
    assert path.parent.parent == home / ".rho" / "sessions"
    assert _session_path(rho) == path
    first = rho.call("newSession")["result"]["path"]
    second = rho.call("newSession")["result"]["path"]
    assert first != second and _session_path(rho) == Path(second)
    assert str(path) not in (first, second)
    assert rho.finish() == 0
    assert not path.exists()
    assert _session_files(home) == []


def test_the_file_appears_with_the_first_prompt_and_is_private(
    start_rho, server: ScriptedServer, home: Path
) -> None:  # type: ignore[no-untyped-def]
    rho = start_scripted(start_rho, server)
    path = _session_path(rho)
    assert not path.exists()
    server.add(text_reply("answer"))
    rho.call("prompt", {"message": "question"})
    assert path.exists()
    assert rho.finish() == 0
    roles = [
        json.loads(line).get("payload", {}).get("Message", {}).get("role")
        for line in path.read_text().splitlines()
    ]
    assert roles == [None, "system", "user", "assistant", None]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (path.parent, path.parent.parent, home / ".rho"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not Path(f"{path}.lock").exists()


def test_continue_after_an_empty_start_resumes_the_real_conversation(
    start_rho, server: ScriptedServer, home: Path
) -> None:  # type: ignore[no-untyped-def]
    rho, real = _conversation(start_rho, server)
    assert rho.finish() == 0
    empty = start_scripted(start_rho, server)
    assert empty.finish() == 0
    assert _session_files(home) == [real]
    again = start_scripted(start_rho, server, "-c")
    assert _session_path(again) == real
    messages = again.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    assert again.finish() == 0


# ── Unreadable lines are kept ─────────────────────────────────────────────────


def test_an_unreadable_line_is_skipped_with_one_warning_and_kept(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    rho, path = _conversation(start_rho, server)
    assert rho.finish() == 0
    lines = path.read_text().splitlines()
    future = json.loads(lines[2])  # the user message, as a role this version does not know
    future["payload"]["Message"]["role"] = "developer"
    lines[2] = json.dumps(future)
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    server.add(text_reply("second answer"))
    again = start_scripted(start_rho, server, "--session", str(path))
    messages = again.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "assistant"]
    again.call("prompt", {"message": "more"})
    assert again.finish() == 0
    assert path.read_bytes().startswith(before)
    [warning] = warnings(again.stderr_text())
    assert str(path) in warning
    assert "skipped 1 unreadable line" in warning and "line 3" in warning


# ── Open tool calls are closed on resume ──────────────────────────────────────


@pytest.mark.parametrize("how", ["--session", "-c", "resumeSession"])
def test_a_call_left_waiting_by_a_kill_is_answered_on_resume(
    start_rho, server: ScriptedServer, project: Path, how: str
) -> None:  # type: ignore[no-untyped-def]
    server.add(tool_call_reply("write_file", {"path": "x.txt", "content": "hi"}, call_id="call_w"))
    rho = start_scripted(start_rho, server)
    path = _session_path(rho)
    rho.request("prompt", {"message": "write x"})
    rho.notification("approval/request")
    _kill(rho)

    server.add(text_reply("fine"))
    if how == "resumeSession":
        again = start_scripted(start_rho, server)
        assert again.call("resumeSession", {"path": str(path)})["result"]["path"] == str(path)
    else:
        again = start_scripted(
            start_rho, server, *([how, str(path)] if how == "--session" else [how])
        )
    messages = again.call("getMessages")["result"]["messages"]
    assert messages[-1] == {
        "role": "tool",
        "content": CANCELLED,
        "tool_call_id": "call_w",
        "is_error": True,
    }
    assert again.call("prompt", {"message": "go on"})["result"]["reply"] == "fine"
    sent = server.requests[-1].json["messages"]
    assert [m["role"] for m in sent[-3:]] == ["assistant", "tool", "user"]
    assert sent[-2]["tool_call_id"] == "call_w" and sent[-2]["content"] == CANCELLED
    assert again.finish() == 0
    assert not (project / "x.txt").exists()


# ── One writer per session ────────────────────────────────────────────────────


def test_a_second_rho_on_an_open_session_is_refused_naming_the_first(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    # One first rho holds the session for every way of opening it again (a first rho per
    # way cost ~0.7 s of CPU each).
    first, path = _conversation(start_rho, server)
    for flag in ("--session", "-c"):
        second = start_rho(
            "--endpoint", server.chat_url, *([flag, str(path)] if flag == "--session" else [flag])
        )
        assert second.finish() == 2, flag
        assert second.raw == [], flag
        stderr = second.stderr_text()
        assert stderr.startswith("rho: error: ") and str(path) in stderr, flag
        assert f"pid {first.proc.pid}" in stderr and "Traceback" not in stderr, flag

    # resumeSession of the open session is a JSON-RPC error and keeps the current session.
    second = start_scripted(start_rho, server)
    own = _session_path(second)
    error = second.call("resumeSession", {"path": str(path)})["error"]
    assert error["code"] == -32603
    assert str(path) in error["message"] and f"pid {first.proc.pid}" in error["message"]
    assert _session_path(second) == own
    assert second.finish() == 0 and first.finish() == 0

    for flag in ("--session", "-c"):  # once the first has ended, either way opens it
        after = start_scripted(
            start_rho, server, flag, *([str(path)] if flag == "--session" else [])
        )
        assert _session_path(after) == path, flag
        assert after.finish() == 0, flag


def test_a_lock_left_by_a_killed_rho_blocks_nobody(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    first, path = _conversation(start_rho, server)
    _kill(first)
    lock = Path(f"{path}.lock")
    assert lock.read_text() == f"{first.proc.pid}\n"
    server.add(text_reply("still here"))
    again = start_scripted(start_rho, server, "--session", str(path))
    assert again.call("prompt", {"message": "after the crash"})["result"]["reply"] == "still here"
    assert again.finish() == 0
    assert not lock.exists()


# ── The startup hint ──────────────────────────────────────────────────────────


def test_the_resume_hint_is_only_given_for_a_new_session(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    rho, path = _conversation(start_rho, server)
    assert rho.finish() == 0
    fresh = start_scripted(start_rho, server)
    assert fresh.finish() == 0
    hint = "rho: 1 previous session(s) for this project; rho -c resumes the latest"
    assert hint in fresh.stderr_text().splitlines()
    for flag in (["-c"], ["--session", str(path)]):
        again = start_scripted(start_rho, server, *flag)
        assert again.finish() == 0
        stderr = again.stderr_text()
        assert f"rho: session: {path}" in stderr.splitlines()
        assert "rho -c" not in stderr


# ── Finding sessions: by id, by page ──────────────────────────────────────────


def _saved(project: Path, home: Path, session_id: str, mtime: int) -> Path:
    """A saved session of the project with the given id and one user message."""
    from rho_kernel.session.discovery import sessions_dir

    directory = sessions_dir(project, home)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{mtime}_{session_id}.jsonl"
    header = {"type": "Header", "id": session_id, "version": 2, "created_at_secs": mtime,
              "cwd": str(project), "parent_session": None}  # fmt: skip
    entry = {"type": "Entry", "id": f"e{session_id[:7]}", "parent_id": None,
             "timestamp": {"secs_since_epoch": mtime, "nanos_since_epoch": 0},
             "resolution": "Full",
             "payload": {"Message": {"role": "user", "content": f"hello {session_id}"}}}  # fmt: skip
    path.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    os.utime(path, (mtime, mtime))
    return path


def test_sessions_are_listed_by_page_and_resumed_by_id_or_unique_prefix(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    a = _saved(project, home, "3fa2c1d0", 1_700_000_001)
    b = _saved(project, home, "3f09bb12", 1_700_000_002)
    c = _saved(project, home, "77aa0000", 1_700_000_003)
    rho = start_scripted(start_rho, server, "--ephemeral")
    first = rho.call("listSessions", {"limit": 2})["result"]
    assert [s["path"] for s in first["sessions"]] == [str(c), str(b)]
    assert [s["latest"] for s in first["sessions"]] == [True, False]
    assert first["nextOffset"] == 2
    rest = rho.call("listSessions", {"limit": 2, "offset": 2})["result"]
    assert [s["path"] for s in rest["sessions"]] == [str(a)]
    assert rest["sessions"][0]["latest"] is False and rest["nextOffset"] is None
    assert len(rho.call("listSessions")["result"]["sessions"]) == 3
    assert rho.call("listSessions", {"limit": 0})["error"]["code"] == -32602

    assert rho.call("resumeSession", {"id": "3fa2c1d0"})["result"]["path"] == str(a)
    assert rho.call("resumeSession", {"id": "77"})["result"]["path"] == str(c)
    messages = rho.call("getMessages")["result"]["messages"]
    assert messages[-1]["content"] == "hello 77aa0000"
    ambiguous = rho.call("resumeSession", {"id": "3f"})["error"]
    assert ambiguous["code"] == -32602
    assert "'3f' names 2 sessions" in ambiguous["message"]
    assert str(a) in ambiguous["message"] and str(b) in ambiguous["message"]
    assert rho.call("getState")["result"]["sessionPath"] == str(c)  # kept the current one
    missing = rho.call("resumeSession", {"id": "0123"})["error"]
    assert missing["code"] == -32602 and "has an id starting with '0123'" in missing["message"]
    for params in ({}, {"path": str(a), "id": "3fa"}):
        error = rho.call("resumeSession", params)["error"]
        assert error["code"] == -32602 and "either path" in error["message"]
    by_path = rho.call("resumeSession", {"path": "3f09bb12"})["error"]
    assert by_path["code"] == -32603 and "pass id instead of path" in by_path["message"]
    assert rho.finish() == 0


def test_the_session_flag_takes_an_id_or_a_unique_prefix(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    a = _saved(project, home, "3fa2c1d0", 1_700_000_001)
    _saved(project, home, "3f09bb12", 1_700_000_002)
    by_prefix = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--session", "3fa")
    assert by_prefix.read()["params"]["sessionPath"] == str(a)
    assert by_prefix.finish() == 0
    ambiguous = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--session", "3f")
    assert ambiguous.finish() == 2
    stderr = ambiguous.stderr_text()
    assert "'3f' names 2 sessions" in stderr and "Traceback" not in stderr
    assert ambiguous.raw == []
    unknown = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--session", "zz")
    assert unknown.finish() == 2
    assert "no file 'zz' exists" in unknown.stderr_text()
