"""Follow-up prompts (`prompt` with `queue: true`) through the real `rho` process."""

from __future__ import annotations

from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _writing(path: str) -> Any:
    """A reply whose tool call asks for approval: its turn waits until it is answered."""
    return tool_call_reply("write_file", {"path": path, "content": "x"})


def _turns_started(rho: RhoProcess) -> list[str]:
    return [m["params"]["turnId"] for m in rho.seen if m.get("method") == "agent/start"]


def _ended(rho: RhoProcess, turn_id: str) -> dict[str, Any]:
    """Wait for the end of turn `turn_id` (agent/end or agent/error) and return its params."""
    return rho.wait_for(
        lambda m: (
            m.get("method") in ("agent/end", "agent/error") and m["params"].get("turnId") == turn_id
        )
    )["params"]


def _last_user_message(request: Any) -> str:
    return [m for m in request.json["messages"] if m["role"] == "user"][-1]["content"]


def test_queued_prompts_are_answered_at_once_and_run_in_arrival_order(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(_writing("a.txt"), text_reply("a done"), text_reply("b"), text_reply("p"))
    server.add(text_reply("c"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    first = rho.request("prompt", {"message": "first"})
    approval = rho.notification("approval/request")["params"]
    running = approval["turnId"]
    b = rho.call("prompt", {"message": "second,\n  queued", "queue": True})["result"]
    plain = rho.request("prompt", {"message": "plain"})  # waits in line, as before
    c = rho.call("prompt", {"message": "third", "queue": True})["result"]
    assert b["queued"] is True and c["queued"] is True and b["turnId"] != c["turnId"]
    state = rho.call("getState")["result"]
    assert state["busy"] is True
    assert state["queued"] == [
        {"turnId": b["turnId"], "preview": "second, queued"},
        {"turnId": c["turnId"], "preview": "third"},
    ]
    rho.answer_approval(approval, approved=True)
    assert rho.wait_for(lambda m: m.get("id") == first)["result"]["reply"] == "a done"
    assert _ended(rho, b["turnId"])["reply"] == "b"
    assert rho.wait_for(lambda m: m.get("id") == plain)["result"]["reply"] == "p"
    assert _ended(rho, c["turnId"])["reply"] == "c"
    assert rho.call("getState")["result"]["queued"] == []
    assert rho.finish() == 0
    started = _turns_started(rho)
    assert started[:2] == [running, b["turnId"]] and started[3] == c["turnId"]
    posts = [r for r in server.requests if r.method == "POST"]
    assert [_last_user_message(r) for r in posts[2:]] == ["second,\n  queued", "plain", "third"]


def test_a_queued_prompt_taken_out_by_abort_never_runs(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(_writing("a.txt"), text_reply("a done"), text_reply("kept"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "first"})
    approval = rho.notification("approval/request")["params"]
    dropped = rho.call("prompt", {"message": "drop me", "queue": True})["result"]["turnId"]
    kept = rho.call("prompt", {"message": "keep me", "queue": True})["result"]["turnId"]
    assert rho.call("abort", {"turnId": dropped})["result"] == {}
    queued = rho.call("getState")["result"]["queued"]
    assert [item["turnId"] for item in queued] == [kept]
    again = rho.call("abort", {"turnId": dropped})["error"]
    assert again["code"] == -32002 and dropped in again["message"]
    rho.answer_approval(approval, approved=True)
    assert _ended(rho, kept)["reply"] == "kept"
    assert rho.finish() == 0
    assert dropped not in _turns_started(rho)
    posts = [r for r in server.requests if r.method == "POST"]
    assert "drop me" not in str([r.json for r in posts])


def test_a_queued_prompt_sent_while_idle_runs_at_once_and_abort_by_its_id_cancels_it(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(_writing("b.txt"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    queued = rho.call("prompt", {"message": "go", "queue": True})["result"]
    approval = rho.notification("approval/request")["params"]
    assert approval["turnId"] == queued["turnId"]
    assert rho.call("getState")["result"]["queued"] == []  # it runs: no longer queued
    assert rho.call("abort", {"turnId": queued["turnId"]})["result"] == {}
    assert _ended(rho, queued["turnId"])["finishReason"] == "cancelled"
    assert rho.finish() == 0


def test_a_failing_queued_prompt_ends_with_agent_error_naming_its_turn(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")  # nothing scripted: HTTP 500
    queued = rho.call("prompt", {"message": "go", "queue": True})["result"]["turnId"]
    assert "error" in _ended(rho, queued)
    assert rho.call("getState")["result"]["busy"] is False
    assert rho.finish() == 0


def test_prompts_still_queued_when_the_input_ends_do_not_run(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(_writing("a.txt"), text_reply("never"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "first"})
    running = rho.notification("approval/request")["params"]["turnId"]
    queued = rho.call("prompt", {"message": "later", "queue": True})["result"]["turnId"]
    assert rho.finish() == 0
    assert _turns_started(rho) == [running] and queued != running
    assert len([r for r in server.requests if r.method == "POST"]) == 1


def test_queue_refuses_steer_blank_and_an_unknown_turn_id_in_rhos_words(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    both = rho.call("prompt", {"message": "x", "queue": True, "steer": True})["error"]
    assert both["code"] == -32602 and "steer and queue" in both["message"]
    blank = rho.call("prompt", {"message": "  ", "queue": True})["error"]
    assert blank["code"] == -32602
    wrong = rho.call("prompt", {"message": "x", "queue": "yes"})["error"]
    assert wrong["code"] == -32602
    unknown = rho.call("abort", {"turnId": "turn_000000000000"})["error"]
    assert unknown["code"] == -32002 and "nothing was cancelled" in unknown["message"]
    assert rho.call("getState")["result"]["queued"] == []
    assert rho.finish() == 0
    assert server.requests == [] and "Traceback" not in rho.stderr_text()
