"""What the client hears of a turn, through the real `rho` process: the reply as streamed,
every call of a batch with its outcome, the client going away mid-approval, and the turn id
that tells queued prompts apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_calls_reply

WRITE = "write_file"


def _writes(*names: str, under: str = "") -> object:
    """One reply that writes each of `names` (in the folder `under`), call ids `call_<name>`."""
    return tool_calls_reply(
        [(WRITE, {"path": under + name, "content": name}) for name in names],
        call_ids=[f"call_{name}" for name in names],
    )


def _shared(shared_rho) -> tuple[RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho, fresh for this test (its exit status is checked when
    the module is done); each test writes in a folder of its own in the shared project."""
    shared: SharedRho = shared_rho("--ephemeral")
    return shared.rho, shared.server, shared.project


def _params(rho: RhoProcess, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == method]


def _response(rho: RhoProcess, request_id: object) -> dict[str, Any]:
    def matches(message: dict[str, Any]) -> bool:
        return message.get("id") == request_id and "method" not in message

    earlier = [m for m in rho.seen if matches(m)]
    return earlier[0] if earlier else rho.wait_for(matches)


def _config(project: Path, text: str) -> None:
    (project / ".rho").mkdir(exist_ok=True)
    (project / ".rho" / "config.toml").write_text(text)


# ── the reply is what was streamed ─────────────────────────────────────────


def test_the_reply_is_the_streamed_and_stored_text(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(shared_rho)
    server.add(text_reply("The answer is 42.", reasoning="let me think about it", chunks=3))
    result = rho.call("prompt", {"message": "question"})["result"]
    streamed = "".join(p["delta"] for p in _params(rho, "message/delta"))
    assert result["reply"] == streamed == "The answer is 42."
    assert "reasoning" not in result
    end = _params(rho, "agent/end")[0]
    assert end["reply"] == streamed and "reasoning" not in end
    stored = rho.call("getMessages")["result"]["messages"][-1]
    assert stored["role"] == "assistant" and stored["content"] == result["reply"]


def test_show_reasoning_sends_the_reasoning_beside_the_reply(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _config(project, "[agent]\nshow_reasoning = true\n")
    server.add(text_reply("Paris.", reasoning="capital of France"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    result = rho.call("prompt", {"message": "capital?"})["result"]
    assert result["reply"] == "Paris." and result["reasoning"] == "capital of France"
    end = _params(rho, "agent/end")[0]
    assert (end["reply"], end["reasoning"]) == ("Paris.", "capital of France")


# ── every call of a batch is announced ─────────────────────────────────────


def _announced(rho: RhoProcess) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    calls = [p["callId"] for p in _params(rho, "tool/call")]
    results = [p["callId"] for p in _params(rho, "tool/result")]
    end = _params(rho, "agent/end")[0]
    summary = [(c["callId"], c["outcome"]["kind"]) for c in end["toolCalls"]]
    return calls, results, summary


def test_abort_announces_every_call_of_the_batch(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    server.add(_writes("a", "b", "c", under="aborted/"), text_reply("later"))
    prompt_id = rho.request("prompt", {"message": "write three"})
    rho.notification("approval/request")
    rho.call("abort")
    _response(rho, prompt_id)
    ids = ["call_a", "call_b", "call_c"]
    calls, results, summary = _announced(rho)
    assert calls == results == ids
    assert summary == [(call_id, "cancelled") for call_id in ids]
    outputs = [p["output"] for p in _params(rho, "tool/result")]
    assert outputs == ["Tool call cancelled."] + ["Tool call cancelled before it ran."] * 2
    assert _params(rho, "agent/end")[0]["finishReason"] == "cancelled"
    assert not (project / "aborted").exists()


def test_a_redirect_announces_the_calls_it_skips(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(shared_rho)
    server.add(_writes("a", "b", under="redirected/"), text_reply("ok"))
    prompt_id = rho.request("prompt", {"message": "write two"})
    request = rho.notification("approval/request")["params"]
    rho.answer_approval(request, approved=False, message="write nothing")
    _response(rho, prompt_id)
    calls, results, summary = _announced(rho)
    assert calls == results == ["call_a", "call_b"]
    assert summary == [("call_a", "denied"), ("call_b", "cancelled")]


# ── end of input while an approval waits ───────────────────────────────────


def _tool_texts(path: str) -> list[str]:
    from rho_kernel.session import Session

    session = Session.open(Path(path))
    try:
        return [m.text for m in session.path_messages() if m.role == "tool"]
    finally:
        session.close()


def _assert_cancelled_by_end_of_input(rho: RhoProcess, server: ScriptedServer) -> None:
    assert len(server.requests) == 1  # no model request after the client went away
    assert "tool/denied" not in rho.methods_seen()
    calls, results, summary = _announced(rho)
    assert calls == results == ["call_a", "call_b"]
    assert summary == [("call_a", "cancelled"), ("call_b", "cancelled")]
    first = _params(rho, "tool/result")[0]["output"]
    assert first.startswith("Tool call cancelled: the client went away")
    assert _params(rho, "agent/end")[0]["finishReason"] == "cancelled"


def test_end_of_input_while_an_approval_waits_cancels_the_turn(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    server.add(_writes("a", "b"), text_reply("must not be asked"))
    rho = start_scripted(start_rho, server)
    session_path = rho.seen[0]["params"]["sessionPath"]
    rho.request("prompt", {"message": "write two"})
    rho.notification("approval/request")
    assert rho.finish() == 0
    _assert_cancelled_by_end_of_input(rho, server)
    texts = _tool_texts(session_path)
    assert len(texts) == 2 and not any("denied" in text for text in texts)
    assert texts[0].startswith("Tool call cancelled: the client went away")
    assert not (project / "a").exists()


def test_a_piped_prompt_runs_no_call_once_input_has_ended(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    # The end of input cancels the turn, or comes before it starts: nothing is written.
    server.add(_writes("a", "b"), text_reply("must not be asked"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "write two"})
    assert rho.finish() == 0
    assert len(server.requests) <= 1 and "tool/denied" not in rho.methods_seen()
    assert not (project / "a").exists() and not (project / "b").exists()
    assert [end["finishReason"] for end in _params(rho, "agent/end")] in ([], ["cancelled"])


# ── turn ids ───────────────────────────────────────────────────────────────


def test_queued_prompts_are_told_apart_by_their_turn_id(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    (project / "queued").mkdir(exist_ok=True)
    (project / "queued" / "r.txt").write_text("r")
    server.add(
        tool_calls_reply([("read_file", {"path": "queued/r.txt"})]),
        text_reply("first answer"),
        _writes("w", under="queued/"),
        text_reply("second answer"),
    )
    first_id = rho.request("prompt", {"message": "one"})
    second_id = rho.request("prompt", {"message": "two"})  # queued behind the first
    request = rho.notification("approval/request")["params"]
    rho.answer_approval(request)
    first = _response(rho, first_id)["result"]
    second = _response(rho, second_id)["result"]
    assert first["reply"] == "first answer" and second["reply"] == "second answer"
    assert first["turnId"].startswith("turn_") and first["turnId"] != second["turnId"]
    assert request["turnId"] == second["turnId"]
    turn = None
    kinds: dict[str, set[str]] = {first["turnId"]: set(), second["turnId"]: set()}
    for message in rho.seen:
        method = message.get("method")
        if method is None or method == "ready":
            continue
        params = message["params"]
        if method == "agent/start":
            assert turn is None
            turn = params["turnId"]
        assert params["turnId"] == turn, message
        kinds[turn].add(method)
        if method == "agent/end":
            turn = None
    assert list(kinds) == [first["turnId"], second["turnId"]]
    each = {"agent/start", "state/change", "message/delta", "usage", "agent/end"}
    assert each | {"tool/call", "tool/result"} <= kinds[first["turnId"]]
    assert each | {"tool/call", "approval/request", "tool/result"} <= kinds[second["turnId"]]
    starts = [p["turnId"] for p in _params(rho, "agent/start")]
    assert starts == [first["turnId"], second["turnId"]]


def test_a_failed_prompt_names_its_turn(shared_rho) -> None:  # type: ignore[no-untyped-def]
    from rho_kernel.testing import ErrorReply

    rho, server, _ = _shared(shared_rho)
    server.add(ErrorReply(400, {"error": {"message": "no such model"}}))
    result = rho.call("prompt", {"message": "x"})["result"]
    start = _params(rho, "agent/start")[0]["turnId"]
    error = _params(rho, "agent/error")[0]
    assert "error" in result and result["turnId"] == start == error["turnId"]


def test_a_steering_message_is_answered_with_the_turn_that_takes_it_in(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(shared_rho)
    server.add(_writes("a", under="steered/"), text_reply("done"))
    prompt_id = rho.request("prompt", {"message": "write"})
    request = rho.notification("approval/request")["params"]
    steered = rho.call("prompt", {"message": "also this", "steer": True})["result"]
    assert steered == {"turnId": request["turnId"]}
    rho.answer_approval(request)
    assert _response(rho, prompt_id)["result"]["turnId"] == request["turnId"]
    assert server.requests[1].json["messages"][-1] == {"role": "user", "content": "also this"}
