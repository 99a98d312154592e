"""docs/openrpc.json describes what rho really sends: the checker every e2e test runs at its
end (`openrpc_check.drift`, called by the `start_rho` fixture), and a flow that sends what
the document used to leave out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openrpc_check import DOCUMENT, KNOWN_KEYWORDS, drift  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _request(method: str, request_id: int, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": request_id}
    if params is not None:
        message["params"] = params
    return _line(message)


def _notification(method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return _line(message)


READY = {"version": "1", "model": "m", "provider": "p", "cwd": "/", "sessionPath": ""}


@pytest.mark.parametrize(
    ("received", "problem"),
    [
        (_notification("ready", {**READY, "extra": 1}), "'extra' is not in the document"),
        (_notification("ready", {**READY, "cwd": 5}), "ready.cwd: 5 is not of type string"),
        (_notification("ready", {"version": "1"}), "missing 'model'"),
        (_notification("agent/start"), "has no params"),
        (_notification("made/up", {}), "'made/up' is not in the document"),
        (_notification("state/change", {"state": "dreaming"}), "is not one of"),
        (_line({"jsonrpc": "2.0", "method": "x", "id": 1}), "rho sent a request"),
        (_line({"jsonrpc": "2.0", "id": 7, "result": {"reply": "x", "turn": 1}}),
         "prompt result: 'turn' is not in the document"),
        (_line({"jsonrpc": "2.0", "id": 8, "result": {"messages": [{"role": "user"}]}}),
         "missing 'content'"),
        (_line({"jsonrpc": "2.0", "id": 8, "result": {"messages": [
            {"role": "user", "content": "x", "mood": "ok"}]}}), "'mood' is not in the document"),
        (_line({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}), "integer"),
        (_line({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}), "a response holds"),
        (b"not json\n", "is not JSON"),
    ],
)  # fmt: skip
def test_the_checker_refuses_what_the_document_does_not_describe(
    received: bytes, problem: str
) -> None:
    sent = [_request("prompt", 7, {"message": "x"}), _request("getMessages", 8)]
    found = drift(sent, [received])
    assert found and problem in " ".join(found), found


def test_the_checker_accepts_what_the_document_describes() -> None:
    sent = [_request("prompt", 7, {"message": "x"}), _request("getTree", 9, {})]
    received = [
        _notification("ready", READY),
        _notification("state/change", {"state": "idle", "turnId": "turn_0123456789ab"}),
        _line({"jsonrpc": "2.0", "id": 7, "result": {"reply": "x"}}),
        _line({"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": "m", "data": [1]}}),
        _line({"jsonrpc": "2.0", "id": 99, "result": {"from": "a plugin's method"}}),
    ]
    assert drift(sent, received) == []


def _keywords(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for keyword, value in schema.items():
        if keyword in ("properties", "$defs"):
            for member in value.values():
                found |= _keywords(member)
        elif keyword in ("items", "additionalProperties"):
            found |= _keywords(value)
        elif keyword in ("anyOf", "oneOf", "allOf"):
            for option in value:
                found |= _keywords(option)
    return found


def test_the_checker_knows_every_keyword_the_document_uses() -> None:
    document = json.loads(DOCUMENT.read_text())
    schemas = [*document["components"]["schemas"].values()]
    schemas += [item["params"] for item in document["x-notifications"]]
    for method in document["methods"]:
        schemas += [param["schema"] for param in method["params"]]
        schemas.append(method["result"]["schema"])
    used = set().union(*map(_keywords, schemas))
    assert used <= KNOWN_KEYWORDS, used - KNOWN_KEYWORDS


def test_approvals_messages_and_turns_are_sent_as_the_document_says(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    """`approval/request` with its `sandbox`, `agent/start` with its params object, typed
    `getMessages` items with tool calls and results: all in the document, all checked."""
    server.add(tool_call_reply("run_command", {"command": "echo hi"}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "go"})
    approval = rho.notification("approval/request")["params"]
    assert approval["sandbox"]["mode"] in {"confined", "unconfined"}
    rho.answer_approval(approval)
    rho.wait_for(lambda m: m.get("id") == prompt and "result" in m)
    start = next(m for m in rho.seen if m.get("method") == "agent/start")
    assert set(start["params"]) == {"turnId"}
    messages = rho.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "run_command"
    assert messages[3]["is_error"] is False
    assert rho.finish() == 0
    assert drift(rho.sent, rho.raw) == []
