"""Prompts through the real `rho` process against a scripted model server on loopback."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ErrorReply, HangReply, ScriptedServer, text_reply, tool_call_reply


def _shared(shared_rho) -> tuple[SharedRho, RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho, fresh for this test (tests that need nothing else of
    their own share it: a rho each cost ~0.7 s of CPU)."""
    shared = shared_rho("--ephemeral")
    return shared, shared.rho, shared.server, shared.project


def _write_config(project: Path, text: str) -> None:
    (project / ".rho").mkdir(exist_ok=True)
    (project / ".rho" / "config.toml").write_text(text)


def test_text_prompt_notifications_in_order(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared, rho, server, _ = _shared(shared_rho)
    server.add(text_reply("hello", chunks=2))
    response = rho.call("prompt", {"message": "say hello"})
    assert response["result"]["reply"] == "hello"
    methods = rho.methods_seen()
    assert shared.ready["method"] == "ready"  # the first line rho wrote
    assert methods[:2] == ["agent/start", "state/change"]
    assert methods.count("message/delta") == 2
    assert methods[-2:] == ["state/change", "agent/end"]
    end = rho.seen[-2]["params"]
    assert end["reply"] == "hello" and end["finishReason"] == "stop" and end["iterations"] == 1
    assert end["usage"]["requestCount"] == 1 and end["usage"]["inputTokens"] == 10
    assert rho.seen[-3]["params"] == {"state": "idle", "turnId": end["turnId"]}
    assert server.requests[0].json["model"] == "scripted-model"
    # rho.finish() == 0: checked when the module's shared rho ends


def test_read_file_round_trip(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    (project / "notes.txt").write_text("alpha\nbeta\n")
    server.add(
        tool_call_reply("read_file", {"path": "notes.txt", "hashline": False}),
        text_reply("read it"),
    )
    assert rho.call("prompt", {"message": "read notes"})["result"]["reply"] == "read it"
    tool_result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert tool_result.pop("turnId").startswith("turn_")
    assert tool_result == {
        "callId": "call_scripted_0",
        "name": "read_file",
        "is_error": False,
        "output": "<context>\nalpha\nbeta\n<context:end>",
    }
    assert "approval/request" not in rho.methods_seen()
    sent = server.requests[1].json["messages"][-1]
    assert sent["role"] == "tool" and "alpha" in sent["content"]


def test_write_file_waits_for_approval(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared, rho, server, project = _shared(shared_rho)
    server.add(
        tool_call_reply("write_file", {"path": "out/new.txt", "content": "hi"}),
        text_reply("written"),
    )
    prompt_id = rho.request("prompt", {"message": "write"})
    request = rho.notification("approval/request")["params"]
    assert request["tool"] == "write_file" and request["risk"] == "write"
    assert request["approvalId"].startswith("ap_")
    assert json.loads(request["arguments"]) == {"path": "out/new.txt", "content": "hi"}
    assert not (project / "out" / "new.txt").exists()
    state = rho.call("getState")["result"]  # answered while the turn waits
    assert state["busy"] is True
    rho.answer_approval(request)
    response = rho.wait_for(lambda m: m.get("id") == prompt_id)
    assert response["result"]["reply"] == "written"
    assert (project / "out" / "new.txt").read_text() == "hi"
    notifications = [m for m in rho.methods_seen() if m not in ("message/delta",)]
    assert shared.ready["method"] == "ready"
    assert notifications == [
        "agent/start",
        "state/change",
        "usage",
        "tool/call",
        "state/change",
        "approval/request",
        "state/change",
        "tool/result",
        "state/change",
        "usage",
        "state/change",
        "agent/end",
    ]
    states = [m["params"]["state"] for m in rho.seen if m.get("method") == "state/change"]
    assert states == ["thinking", "awaiting_approval", "executing_tool", "thinking", "idle"]


def test_denied_write_continues_the_turn(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    server.add(tool_call_reply("write_file", {"path": "x.txt", "content": "hi"}), text_reply("ok"))
    prompt_id = rho.request("prompt", {"message": "write"})
    rho.answer_approval(rho.notification("approval/request")["params"], approved=False)
    response = rho.wait_for(lambda m: m.get("id") == prompt_id)
    assert response["result"]["reply"] == "ok"
    assert "tool/denied" in rho.methods_seen()
    assert not (project / "x.txt").exists()
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["toolCalls"][0]["outcome"] == {
        "kind": "denied",
        "output": "Tool call denied by user.",
    }


def test_redirect_becomes_a_user_turn(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, _ = _shared(shared_rho)
    server.add(tool_call_reply("write_file", {"path": "x.txt", "content": "hi"}), text_reply("ok"))
    prompt_id = rho.request("prompt", {"message": "write"})
    request = rho.notification("approval/request")["params"]
    rho.answer_approval(request, approved=False, message="write y.txt instead")
    rho.wait_for(lambda m: m.get("id") == prompt_id)
    assert "tool/denied" not in rho.methods_seen()
    assert server.requests[1].json["messages"][-1] == {
        "role": "user",
        "content": "write y.txt instead",
    }


def test_policy_from_project_config(start_rho, server: ScriptedServer, project: Path) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, '[approval.per_tool]\nwrite_file = "deny"\nread_file = "ask"\n')
    server.add(
        tool_call_reply("write_file", {"path": "x.txt", "content": "hi"}), text_reply("denied")
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("prompt", {"message": "w"})["result"]["reply"] == "denied"
    assert "approval/request" not in rho.methods_seen()
    assert "tool/denied" in rho.methods_seen()
    assert not (project / "x.txt").exists()


def test_hostile_path_is_an_error_result(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, _ = _shared(shared_rho)
    server.add(tool_call_reply("read_file", {"path": "../../etc/passwd"}), text_reply("blocked"))
    rho.call("prompt", {"message": "r"})
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result["is_error"] is True and "outside" in result["output"]


def test_unknown_tool_and_bad_arguments(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, _ = _shared(shared_rho)
    server.add(
        tool_call_reply("no_such_tool", {}),
        tool_call_reply("read_file", "{not json"),
        text_reply("fine"),
    )
    assert rho.call("prompt", {"message": "x"})["result"]["reply"] == "fine"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert "unknown tool 'no_such_tool'" in results[0]["output"]
    assert "not valid JSON" in results[1]["output"]
    assert all(r["is_error"] for r in results)


def test_max_iterations_is_an_agent_end(start_rho, server: ScriptedServer, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "a.txt").write_text("a")
    server.add(tool_call_reply("read_file", {"path": "a.txt"}))
    rho = start_scripted(start_rho, server, "--ephemeral", "--max-iterations", "1")
    assert "result" in rho.call("prompt", {"message": "loop"})
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "max_iterations"


def test_abort_interrupts_the_model_request(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, _ = _shared(shared_rho)
    server.add(HangReply(60))
    prompt_id = rho.request("prompt", {"message": "wait"})
    server.wait_for_requests(1, timeout=10)
    assert rho.call("abort")["result"] == {}
    # The reply hangs for 60 s: an answer before then is the abort's.
    rho.wait_for(lambda m: m.get("id") == prompt_id, timeout=50)
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"


def test_abort_while_awaiting_approval(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    server.add(tool_call_reply("write_file", {"path": "x.txt", "content": "hi"}))
    prompt_id = rho.request("prompt", {"message": "w"})
    rho.notification("approval/request")
    rho.request("abort")
    rho.wait_for(lambda m: m.get("id") == prompt_id)
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"
    assert not (project / "x.txt").exists()


def test_unreachable_endpoint_is_a_clear_agent_error(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, "[agent]\nretry_budget = 0\n")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/v1/chat/completions"
    rho = start_rho("--ephemeral", "--endpoint", endpoint)
    rho.read()
    response = rho.call("prompt", {"message": "hi"})
    assert endpoint in response["result"]["error"]
    error = next(m for m in rho.seen if m.get("method") == "agent/error")["params"]["error"]
    assert endpoint in error and "--endpoint" in error
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()


def test_default_endpoint_is_named_when_nothing_answers(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, "[agent]\nretry_budget = 0\n")
    rho = start_rho("--ephemeral")
    rho.read()
    response = rho.call("prompt", {"message": "hi"})
    assert "localhost:1234/v1/chat/completions" in response["result"]["error"]


def test_retry_budget_exhausted_is_an_agent_error(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, "[agent]\nretry_budget = 1\ninitial_backoff_ms = 1\n")
    server.add(
        ErrorReply(503, {"error": {"message": "overloaded"}}),
        ErrorReply(503, {"error": {"message": "overloaded"}}),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    response = rho.call("prompt", {"message": "hi"})
    error = next(m for m in rho.seen if m.get("method") == "agent/error")["params"]
    assert error["failure"]["status"] == 503 and error["failure"]["attempts"] == 2
    assert response["result"]["failure"] == error["failure"]
    assert "agent/end" not in rho.methods_seen()


def test_consecutive_empty_responses_is_an_agent_end(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _write_config(project, "[agent]\nmax_consecutive_empty = 2\n")
    server.add(text_reply(""), text_reply(""))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.call("prompt", {"message": "hi"})
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "consecutive_empty_responses"


def test_piped_prompt_then_eof_is_answered_without_running_a_turn(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    server.add(text_reply("bye"))
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral")
    rho.request("prompt", {"message": "hi"}, id=1)
    rho.close_stdin()
    assert rho.finish() == 0
    response = next(m for m in rho.seen if m.get("id") == 1)
    if "error" in response:  # read with the end of input: not started
        assert "input ended before this prompt started" in response["error"]["message"]
    else:  # started just before: cancelled
        assert response["result"].get("reply") != "bye"
        end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
        assert end["finishReason"] == "cancelled"


def test_steering_prompt_is_acknowledged_at_once(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, _ = _shared(shared_rho)
    # Its own file: the tests that deny or abort a write of x.txt share the project.
    server.add(
        tool_call_reply("write_file", {"path": "steered.txt", "content": "1"}), text_reply("done")
    )
    prompt_id = rho.request("prompt", {"message": "w"})
    request = rho.notification("approval/request")["params"]
    assert rho.call("prompt", {"message": "also y", "steer": True})["result"] == {
        "turnId": request["turnId"]
    }
    rho.answer_approval(request)
    rho.wait_for(lambda m: m.get("id") == prompt_id)
    assert server.requests[1].json["messages"][-1] == {"role": "user", "content": "also y"}


# ── sessions ───────────────────────────────────────────────────────────────


def _session_file(rho: RhoProcess) -> Path:
    return Path(rho.call("getState")["result"]["sessionPath"])


def test_session_survives_a_crash_and_resumes_with_c(
    start_rho, server: ScriptedServer, home: Path, project: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / "a.txt").write_text("a")
    server.add(tool_call_reply("read_file", {"path": "a.txt"}), text_reply("first answer"))
    rho = start_scripted(start_rho, server)
    path = _session_file(rho)
    assert path.parent.parent == home / ".rho" / "sessions"
    rho.call("prompt", {"message": "first"})
    os.kill(rho.proc.pid, signal.SIGKILL)
    rho.proc.wait(timeout=10)

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["type"] == "Header" and lines[0]["version"] == 2
    tool_line = next(
        x for x in lines if x.get("payload", {}).get("Message", {}).get("role") == "tool"
    )
    assert tool_line["payload"]["Message"]["is_error"] is False

    server.add(text_reply("second answer"))
    again = start_scripted(start_rho, server, "-c")
    assert _session_file(again) == path
    messages = again.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    again.call("prompt", {"message": "second"})
    assert [m["role"] for m in server.requests[-1].json["messages"]][-2:] == ["assistant", "user"]
    assert again.finish() == 0
    assert json.loads(path.read_text().splitlines()[-1])["payload"] == {
        "SessionEnded": {"reason": "transport EOF"}
    }


def test_a_torn_last_line_is_moved_aside_on_resume(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    server.add(text_reply("answer"), text_reply("second answer"))
    rho = start_scripted(start_rho, server)
    path = _session_file(rho)
    rho.call("prompt", {"message": "q"})
    os.kill(rho.proc.pid, signal.SIGKILL)
    rho.proc.wait(timeout=10)
    torn = b'{"type":"Entry","id":"deadbeef","parent_id":nu'
    with path.open("ab") as handle:
        handle.write(torn)
    again = start_scripted(start_rho, server, "--session", str(path))
    messages = again.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    assert again.call("prompt", {"message": "more"})["result"]["reply"] == "second answer"
    assert again.finish() == 0
    stderr = again.stderr_text()
    assert "unfinished write" in stderr and "moved the unfinished last line" in stderr
    data = path.read_bytes()
    assert torn not in data and data.endswith(b"\n")
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    [side] = path.parent.glob(path.name + ".torn-*")
    assert side.read_bytes() == torn
    assert side.name in stderr
    resumed = start_scripted(start_rho, server, "--session", str(path))
    roles = [m["role"] for m in resumed.call("getMessages")["result"]["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert resumed.finish() == 0
    assert "unfinished" not in resumed.stderr_text()
    assert records[-1]["payload"] == {"SessionEnded": {"reason": "transport EOF"}}


def test_clear_new_session_list_and_resume(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    server.add(text_reply("one"), text_reply("two"))
    rho = start_scripted(start_rho, server)
    first = _session_file(rho)
    rho.call("prompt", {"message": "q"})
    assert rho.call("clear")["result"] == {}
    assert [m["role"] for m in rho.call("getMessages")["result"]["messages"]] == ["system"]
    created = rho.call("newSession")["result"]
    assert created["path"] != str(first) and not Path(created["path"]).exists()
    rho.call("prompt", {"message": "q2"})  # the file appears with the first prompt
    assert Path(created["path"]).exists()
    later = Path(first).stat().st_mtime + 10  # newer, whatever the clock's grain
    os.utime(created["path"], (later, later))
    sessions = rho.call("listSessions")["result"]["sessions"]
    assert [s["path"] for s in sessions] == [created["path"], str(first)]
    assert [s["latest"] for s in sessions] == [True, False]
    resumed = rho.call("resumeSession", {"path": str(first)})["result"]
    assert resumed["path"] == str(first) and resumed["entryCount"] >= 4
    bad = rho.call("resumeSession", {"path": str(first.parent / "missing.jsonl")})
    assert bad["error"]["code"] == -32603 and "missing.jsonl" in bad["error"]["message"]
    assert rho.finish() == 0


def test_api_key_env_is_sent_as_bearer(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    server.add(text_reply("ok"))
    rho = start_rho(
        "--endpoint",
        server.chat_url,
        "--api-key-env",
        "MY_TEST_KEY",
        "--ephemeral",
        env={"MY_TEST_KEY": "sk-test-123"},
    )
    rho.read()
    rho.call("prompt", {"message": "hi"})
    assert server.requests[0].headers["authorization"] == "Bearer sk-test-123"


def test_provider_from_config_and_root_from_a_subdirectory(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    _write_config(  # providers are the user's to choose: the user's own file
        home,
        f'[agent]\nprovider = "scripted"\n\n[[providers]]\nname = "scripted"\nendpoint = "{server.chat_url}"\n'
        'default_model = "configured-model"\n',
    )
    (project / "src" / "deep").mkdir(parents=True)
    server.add(text_reply("ok"))
    rho = start_rho("--ephemeral", cwd=project / "src" / "deep")
    ready = rho.read()["params"]
    assert ready["cwd"] == str(project)
    assert (ready["model"], ready["provider"]) == ("configured-model", "scripted")
    rho.call("prompt", {"message": "hi"})
    assert server.requests[0].json["model"] == "configured-model"


def test_sigterm_ends_the_session_cleanly(start_rho, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    server.add(HangReply(60))
    rho = start_scripted(start_rho, server)
    path = _session_file(rho)
    rho.request("prompt", {"message": "wait"})
    server.wait_for_requests(1, timeout=10)
    rho.proc.send_signal(signal.SIGTERM)
    assert rho.proc.wait(timeout=10) == 0
    assert "Traceback" not in rho.stderr_text()
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["payload"] == {"SessionEnded": {"reason": "signal"}}
