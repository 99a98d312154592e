"""Requests a client writes with `ready` — at once, in one write, before the runtime has
loaded — are answered in order, with what they get when written after it; a steering prompt
written right after a prompt reaches it, and so does an abort; and a start that fails while the runtime loads
still says why and exits with status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

ARGS = ("--ephemeral", "-m", "scripted-model")


def _line(request_id: int, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


def _start(start_rho: Any, server: ScriptedServer, *extra: str) -> RhoProcess:
    rho: RhoProcess = start_rho("--endpoint", server.chat_url, *ARGS, *extra)
    return rho


def _responses(rho: RhoProcess, ids: set[int]) -> dict[int, dict[str, Any]]:
    """Read until every request in `ids` is answered; the responses by id, in the order
    they came (notifications are kept in `rho.seen`)."""
    answered: dict[int, dict[str, Any]] = {}
    while not ids <= answered.keys():
        message = rho.read()
        if isinstance(message, dict) and "method" not in message:
            answered[message["id"]] = message
    return answered


def test_a_steer_written_with_its_prompt_reaches_it(start_rho: Any, server: ScriptedServer) -> None:
    server.add(text_reply("done"))
    rho = _start(start_rho, server)
    rho.send_raw(
        _line(1, "prompt", {"message": "write it"})
        + _line(2, "prompt", {"message": "in French", "steer": True})
    )  # one write, before `ready` is read
    assert rho.read()["method"] == "ready"
    answered = _responses(rho, {1, 2})
    turn = answered[2]["result"]["turnId"]
    assert answered[2]["result"] == {"turnId": turn}
    assert answered[1]["result"]["turnId"] == turn and answered[1]["result"]["reply"] == "done"
    assert list(answered) == [2, 1]  # the steer is answered at once
    (request,) = server.requests  # taken in with the prompt: no extra round
    assert request.json["messages"][-2:] == [
        {"role": "user", "content": "write it"},
        {"role": "user", "content": "in French"},
    ]
    starts = [m["params"]["turnId"] for m in rho.seen if m.get("method") == "agent/start"]
    assert starts == [turn]
    assert rho.finish() == 0


def test_a_steer_goes_to_the_first_of_the_prompts_read(
    start_rho: Any, server: ScriptedServer
) -> None:
    server.add(text_reply("first"), text_reply("second"))
    rho = _start(start_rho, server)
    rho.send_raw(
        _line(1, "prompt", {"message": "one"})
        + _line(2, "prompt", {"message": "two"})
        + _line(3, "prompt", {"message": "also", "steer": True})
        + _line(4, "prompt", {"message": "and more", "steer": True})
    )
    answered = _responses(rho, {1, 2, 3, 4})
    first = answered[1]["result"]["turnId"]
    assert answered[3]["result"] == answered[4]["result"] == {"turnId": first}
    assert answered[2]["result"]["turnId"] != first
    assert [m["content"] for m in server.requests[0].json["messages"][-3:]] == [
        "one",
        "also",
        "and more",
    ]
    assert server.requests[1].json["messages"][-1]["content"] == "two"
    assert rho.finish() == 0


def test_a_steer_after_a_bad_prompt_is_refused_as_before(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = _start(start_rho, server)
    rho.send_raw(
        _line(1, "prompt", {"message": "   "})  # never runs a turn
        + _line(2, "prompt", {"message": "steer", "steer": True})
    )
    answered = _responses(rho, {1, 2})
    assert answered[1]["error"]["code"] == -32602
    assert answered[2]["error"]["code"] == -32002
    assert server.requests == []
    assert rho.finish() == 0


def _session(rho: RhoProcess, server: ScriptedServer, at_once: bool) -> list[Any]:
    """Every response (less turn and session ids) to one write of mixed requests, written
    before `ready` is read or after."""
    server.add(tool_call_reply("list_dir", {"path": "."}), text_reply("listed"))
    batch = (
        _line(1, "getState")
        + _line(2, "listTools")
        + _line(3, "setModel", {"model": "127.0.0.1:other-model"})
        + _line(4, "prompt", {"message": "list"})
        + _line(5, "prompt", {"message": "and say so", "steer": True})
        + _line(6, "getMessages")
        + _line(7, "abort", {"turnId": "turn_000000000000"})
    )
    if not at_once:
        assert rho.read()["method"] == "ready"
    rho.send_raw(batch)
    answered = _responses(rho, set(range(1, 8)))
    state = rho.call("getState")
    rho.finish()
    text = json.dumps([answered[i] for i in sorted(answered)] + [state])
    for turn in {m["params"]["turnId"] for m in rho.seen if m.get("method") == "agent/start"}:
        text = text.replace(turn, "TURN")
    session = state["result"]["sessionId"]
    return json.loads(text.replace(session, "SESSION"))  # type: ignore[no-any-return]


def test_requests_written_at_once_get_what_they_get_after_ready(
    start_rho: Any, project: Path, home: Path, tmp_path: Path
) -> None:
    outcomes = []
    for at_once in (True, False):
        with ScriptedServer(models=["other-model"]) as server:
            rho = _start(start_rho, server)
            outcomes.append(_session(rho, server, at_once))
            assert [r.json["model"] for r in server.requests] == ["other-model"] * 2
    assert outcomes[0] == outcomes[1]
    results = outcomes[0]
    assert (
        results[0]["result"]["busy"] is False and results[0]["result"]["model"] == "scripted-model"
    )
    assert results[3]["result"]["reply"] == "listed" and results[4]["result"] == {"turnId": "TURN"}
    assert results[6]["error"]["code"] == -32002
    assert results[-1]["result"]["model"] == "other-model"


def test_a_config_the_load_refuses_still_ends_rho_with_its_reason(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text("[agent]\nmax_iterations = 0\n")
    rho = _start(start_rho, server)
    rho.send_raw(_line(1, "prompt", {"message": "hi"}))
    assert rho.finish() == 2
    stderr = rho.stderr_text()
    assert "max_iterations" in stderr and "Traceback" not in stderr
    methods = [json.loads(line).get("method") for line in rho.raw]
    assert methods in ([], ["ready"])  # nothing but `ready` reached stdout
    assert server.requests == []


def test_a_broken_plugin_is_reported_and_the_requests_are_answered(
    start_rho: Any, server: ScriptedServer, tmp_path: Path
) -> None:
    from rho_process import install_plugin, plugin_env  # type: ignore[import-not-found]

    site = tmp_path / "site"
    install_plugin(site, "broken_plugin", "broken", "raise RuntimeError('broken on import')\n")
    rho = start_rho("--endpoint", server.chat_url, *ARGS, env=plugin_env(site, "broken"))
    rho.send_raw(_line(1, "getState") + _line(2, "listTools"))
    answered = _responses(rho, {1, 2})
    assert list(answered) == [1, 2] and all("result" in r for r in answered.values())
    assert rho.finish() == 0
    assert "broken on import" in rho.stderr_text()


def _ends(rho: RhoProcess) -> dict[str, str]:
    """Each turn's finish reason, by turn id (from `agent/end`)."""
    ends = [m["params"] for m in rho.seen if m.get("method") == "agent/end"]
    return {end["turnId"]: end["finishReason"] for end in ends}


def test_an_abort_written_with_its_prompt_stops_it_before_any_request(
    start_rho: Any, server: ScriptedServer
) -> None:
    server.add(text_reply("never sent"))
    rho = _start(start_rho, server)
    rho.send_raw(_line(1, "prompt", {"message": "write it"}) + _line(2, "abort"))
    answered = _responses(rho, {1, 2})
    assert answered[2]["result"] == {}
    turn = answered[1]["result"]["turnId"]
    assert answered[1]["result"] == {"reply": "", "turnId": turn}
    assert server.requests == []  # the turn began cancelled: nothing reached the model
    assert rho.finish() == 0
    assert _ends(rho) == {turn: "cancelled"}


def test_an_abort_written_after_two_prompts_stops_the_first_only(
    start_rho: Any, server: ScriptedServer
) -> None:
    server.add(text_reply("answered"))
    rho = _start(start_rho, server)
    rho.send_raw(
        _line(1, "prompt", {"message": "one"})
        + _line(2, "prompt", {"message": "two"})
        + _line(3, "abort")
    )
    answered = _responses(rho, {1, 2, 3})
    assert answered[1]["result"]["reply"] == "" and answered[2]["result"]["reply"] == "answered"
    (request,) = server.requests
    assert request.json["messages"][-1] == {"role": "user", "content": "two"}
    assert rho.finish() == 0
    first, second = answered[1]["result"]["turnId"], answered[2]["result"]["turnId"]
    assert _ends(rho) == {first: "cancelled", second: "stop"}
