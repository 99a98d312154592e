"""`setReasoningEffort` through the real `rho` process: what the model requests carry."""

from __future__ import annotations

from pathlib import Path

from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _posts(server: ScriptedServer) -> list[dict]:
    return [r.json for r in server.requests if r.method == "POST"]


def test_the_effort_set_is_sent_with_the_next_requests_and_null_sends_none(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    server.add(text_reply("one"), text_reply("two"), text_reply("three"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert "reasoningEffort" not in rho.call("getState")["result"]
    rho.call("prompt", {"message": "first"})
    assert rho.call("setReasoningEffort", {"effort": "high"})["result"] == {"effort": "high"}
    assert rho.call("getState")["result"]["reasoningEffort"] == "high"
    rho.call("prompt", {"message": "second"})
    assert rho.call("setReasoningEffort", {"effort": None})["result"] == {"effort": None}
    rho.call("prompt", {"message": "third"})
    assert rho.finish() == 0
    first, second, third = _posts(server)
    assert "reasoning_effort" not in first and "reasoning_effort" not in third
    assert second["reasoning_effort"] == "high"


def test_a_configured_effort_shows_in_get_state_and_can_be_lowered(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text('[agent]\nreasoning_effort = "medium"\n')
    server.add(text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("getState")["result"]["reasoningEffort"] == "medium"
    rho.call("setReasoningEffort", {"effort": "low"})
    rho.call("prompt", {"message": "go"})
    assert rho.finish() == 0
    assert _posts(server)[0]["reasoning_effort"] == "low"


def test_a_change_during_a_prompt_applies_from_its_next_request(
    start_rho,
    server: ScriptedServer,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    server.add(tool_call_reply("write_file", {"path": "a.txt", "content": "x"}), text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    asked = rho.request("prompt", {"message": "write"})
    approval = rho.notification("approval/request")["params"]
    # answered at once, while the prompt waits for its approval
    assert rho.call("setReasoningEffort", {"effort": "low"})["result"] == {"effort": "low"}
    rho.answer_approval(approval, approved=True)
    rho.wait_for(lambda m: m.get("id") == asked)
    assert rho.finish() == 0
    before, after = _posts(server)
    assert "reasoning_effort" not in before and after["reasoning_effort"] == "low"


def test_an_effort_rho_does_not_offer_is_refused_in_its_words(
    start_rho,
    server: ScriptedServer,  # type: ignore[no-untyped-def]
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    for params in ({"effort": "extreme"}, {"effort": 3}, {}, {"effort": "high", "x": 1}):
        error = rho.call("setReasoningEffort", params)["error"]
        assert error["code"] == -32602 and error["message"].startswith("Invalid params: ")
    assert "reasoningEffort" not in rho.call("getState")["result"]
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()
