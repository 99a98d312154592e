"""Approvals bound to their call, one decoding of arguments, abort and signals mid-call,
steering and retries, through the real `rho` process."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from rho_process import RhoProcess, plugin_env, start_scripted  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ErrorReply, ScriptedServer, text_reply, tool_calls_reply

WRITE = "write_file"


def _writes(*names: str) -> object:
    return tool_calls_reply([(WRITE, {"path": name, "content": name}) for name in names])


def _shared(shared_rho, *replies: object) -> tuple[RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho, fresh for this test, with `replies` scripted (tests
    that need nothing else of their own share it: a rho each cost ~0.7 s of CPU)."""
    shared: SharedRho = shared_rho("--ephemeral")
    shared.server.add(*replies)
    return shared.rho, shared.server, shared.project


def _response(rho: RhoProcess, request_id: object) -> dict:
    def matches(message: dict) -> bool:
        return message.get("id") == request_id and "method" not in message

    earlier = [m for m in rho.seen if matches(m)]
    return earlier[0] if earlier else rho.wait_for(matches)


def test_a_double_clicked_approve_approves_only_its_own_call(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, _, project = _shared(shared_rho, _writes("a.txt", "b.txt"), text_reply("done"))
    prompt_id = rho.request("prompt", {"message": "write two"})
    first = rho.notification("approval/request")["params"]
    click1 = rho.answer_approval(first)
    click2 = rho.answer_approval(first)
    assert _response(rho, click1)["result"] == {}
    second = rho.notification("approval/request")["params"]
    error = _response(rho, click2)["error"]
    assert error["code"] == -32001 and first["approvalId"] in error["message"]
    assert second["approvalId"] != first["approvalId"]
    assert json.loads(second["arguments"])["path"] == "b.txt"
    assert not (project / "b.txt").exists()
    rho.answer_approval(second, approved=False)
    _response(rho, prompt_id)
    assert (project / "a.txt").exists() and not (project / "b.txt").exists()


def test_a_late_approve_after_abort_does_not_approve_the_next_prompt(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, _, project = _shared(shared_rho, _writes("old.txt"), _writes("new.txt"), text_reply("ok"))
    first_prompt = rho.request("prompt", {"message": "one"})
    stale = rho.notification("approval/request")["params"]
    rho.call("abort")
    end = _response(rho, first_prompt)
    assert "reply" in end["result"]
    second_prompt = rho.request("prompt", {"message": "two"})
    pending = rho.notification("approval/request")["params"]
    late = _response(rho, rho.answer_approval(stale))
    assert late["error"]["code"] == -32001
    assert rho.call("getState")["result"]["busy"] is True
    assert not (project / "new.txt").exists()
    rho.answer_approval(pending, approved=False)
    _response(rho, second_prompt)
    assert not (project / "new.txt").exists() and not (project / "old.txt").exists()


def test_an_approval_response_without_an_id_is_refused(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, _, project = _shared(shared_rho, _writes("x.txt"), text_reply("ok"))
    prompt_id = rho.request("prompt", {"message": "w"})
    request = rho.notification("approval/request")["params"]
    error = rho.call("approvalResponse", {"approved": True})["error"]
    assert error["code"] == -32602 and "approvalId" in error["message"]
    wrong = rho.call("approvalResponse", {"approvalId": "ap_000000000000", "approved": True})
    assert wrong["error"]["code"] == -32001 and request["approvalId"] in wrong["error"]["message"]
    assert not (project / "x.txt").exists()
    rho.answer_approval(request)
    _response(rho, prompt_id)
    assert (project / "x.txt").read_text() == "x.txt"


def test_repeated_keys_are_refused_and_never_shown_differently(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    raw = '{"path":"notes.txt","content":"x","path":".git/hooks/pre-push"}'
    server.add(tool_calls_reply([(WRITE, raw)]), text_reply("ok"))
    rho.call("prompt", {"message": "w"})
    assert "approval/request" not in rho.methods_seen()
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result["is_error"] and "'path' appears more than once" in result["output"]
    assert not (project / "notes.txt").exists()
    assert not (project / ".git" / "hooks" / "pre-push").exists()


def test_the_approver_sees_the_arguments_that_will_run(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    raw = '{"path": "n.txt",   "content": "caf\\u00e9 \\ud800"}'
    server.add(tool_calls_reply([(WRITE, raw)]), text_reply("ok"))
    prompt_id = rho.request("prompt", {"message": "w"})
    request = rho.notification("approval/request")["params"]
    assert request["arguments"] == '{"path": "n.txt", "content": "café \ufffd"}'
    rho.answer_approval(request)
    _response(rho, prompt_id)
    assert (project / "n.txt").read_text() == "café \ufffd"


def test_abort_during_an_approval_answers_the_call(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(
        shared_rho,
        tool_calls_reply([(WRITE, {"path": "a", "content": "1"})], call_ids=["call_open"]),
        text_reply("fine"),
    )
    first = rho.request("prompt", {"message": "w"})
    rho.notification("approval/request")
    rho.call("abort")
    _response(rho, first)
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"
    assert end["toolCalls"][0]["outcome"]["output"] == "Tool call cancelled."
    assert rho.call("prompt", {"message": "again"})["result"]["reply"] == "fine"
    messages = server.requests[-1].json["messages"]
    answers = [m for m in messages if m["role"] == "tool" and m["tool_call_id"] == "call_open"]
    assert [m["content"] for m in answers] == ["Tool call cancelled."]


SLOW_TOOL = '''
import pathlib, time
from rho_kernel import ToolContext, hookimpl, tool
from rho_kernel.cancel import run_to_completion


def _write(path):
    pathlib.Path(path + ".started").write_text("")
    deadline = time.monotonic() + 60  # the test releases it once rho has the signal
    while not pathlib.Path(path + ".release").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    pathlib.Path(path).write_text("done")
    return "wrote " + pathlib.Path(path).name


@tool(risk="write")
async def slow_write(path: str, *, ctx: ToolContext) -> str:
    """Write a file slowly."""
    return await run_to_completion(_write, str(ctx.root.path / path))


@hookimpl
def rho_register_tools():
    return [slow_write]
'''


def _slow_tool_site(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    dist = site / "slow_tool-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: slow-tool\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[rho]\nslow = slow_tool\n")
    (site / "slow_tool.py").write_text(SLOW_TOOL)
    return plugin_env(site, "slow")


def test_a_write_that_finished_after_the_signal_is_reported_as_done(
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    server.add(tool_calls_reply([("slow_write", {"path": "out.txt"})]), text_reply("never"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=_slow_tool_site(tmp_path))
    rho.request("prompt", {"message": "w"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    deadline = time.monotonic() + 20
    while not (project / "out.txt.started").exists():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.kill(rho.proc.pid, signal.SIGTERM)
    (project / "out.txt.release").write_text("")
    assert rho.finish() == 0
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result.pop("turnId").startswith("turn_")
    assert result == {
        "callId": "call_scripted_0",
        "name": "slow_write",
        "is_error": False,
        "output": "wrote out.txt",
    }
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert end["finishReason"] == "cancelled"
    assert end["toolCalls"][0]["outcome"]["kind"] == "success"
    assert (project / "out.txt").read_text() == "done"


def test_steering_while_idle_is_refused(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(shared_rho, text_reply("answer"))
    error = rho.call("prompt", {"message": "late", "steer": True})["error"]
    assert error["code"] == -32002 and "no prompt is running" in error["message"]
    assert rho.call("prompt", {"message": "real"})["result"]["reply"] == "answer"
    assert all(m["content"] != "late" for m in server.requests[0].json["messages"])


def test_each_retry_is_announced_with_the_configured_backoff(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(
        "[agent]\nretry_budget = 3\ninitial_backoff_ms = 40\n"
    )
    overloaded = {"error": {"message": "overloaded"}}
    server.add(ErrorReply(503, overloaded), ErrorReply(503, overloaded), text_reply("up"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "up"
    retries = [m["params"] for m in rho.seen if m.get("method") == "agent/retry"]
    assert [(r["attempt"], r["maxAttempts"], r["delayMs"]) for r in retries] == [
        (1, 3, 40),
        (2, 3, 80),
    ]
    assert all("503" in r["reason"] and "overloaded" in r["reason"] for r in retries)


def test_every_tool_event_of_parallel_calls_carries_its_call_id(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    (project / "r.txt").write_text("r")
    server.add(
        tool_calls_reply(
            [
                (WRITE, {"path": "w.txt", "content": "w"}),
                ("read_file", {"path": "r.txt"}),
                (WRITE, {"path": "d.txt", "content": "d"}),
            ],
            call_ids=["call_w", "call_r", "call_d"],
        ),
        text_reply("ok"),
    )
    prompt_id = rho.request("prompt", {"message": "three"})
    first = rho.notification("approval/request")["params"]
    rho.answer_approval(first)
    second = rho.notification("approval/request")["params"]
    rho.answer_approval(second, approved=False)
    _response(rho, prompt_id)
    assert (first["callId"], second["callId"]) == ("call_w", "call_d")

    def ids(method: str) -> list[str]:
        return [m["params"]["callId"] for m in rho.seen if m.get("method") == method]

    assert ids("tool/call") == ["call_w", "call_r", "call_d"]
    assert ids("tool/result") == ["call_w", "call_r", "call_d"]
    assert ids("tool/denied") == ["call_d"]
    results = {
        m["params"]["callId"]: m["params"] for m in rho.seen if m.get("method") == "tool/result"
    }
    assert results["call_r"]["output"].startswith("<context>") and not results["call_w"]["is_error"]
    assert results["call_d"]["output"] == "Tool call denied by user."
    end = next(m for m in rho.seen if m.get("method") == "agent/end")["params"]
    assert [call["callId"] for call in end["toolCalls"]] == ["call_w", "call_r", "call_d"]
    sent = [m for m in server.requests[1].json["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in sent] == ["call_w", "call_r", "call_d"]


def test_calls_without_or_with_repeated_ids_get_distinct_generated_ones(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    (project / "ids.txt").write_text("a")  # not a.txt: the project is shared
    server.add(
        tool_calls_reply(
            [("read_file", {"path": "ids.txt"})] * 3,
            call_ids=["same", "same", ""],
        ),
        text_reply("ok"),
    )
    rho.call("prompt", {"message": "two"})
    calls = [m["params"]["callId"] for m in rho.seen if m.get("method") == "tool/call"]
    results = [m["params"]["callId"] for m in rho.seen if m.get("method") == "tool/result"]
    assert calls[0] == "same" and len(set(calls)) == 3 and all(calls) and calls == results
    sent = server.requests[1].json["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert [c["id"] for c in assistant["tool_calls"]] == calls
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == calls
