"""`Permission` answers of `rho_before_tool_call`: a plugin settles whether a call is asked
about — never past a deny, and "ask" wins over "allow"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_kernel import Permission, RhoConfig, hookimpl, tool
from rho_kernel.testing import ScriptedServer, approve_all, run_prompt, text_reply, tool_call_reply
from rho_kernel.tools import Block


@tool(risk="write")
def store(text: str) -> str:
    """Store the text."""
    return f"stored: {text}"


@tool(risk="read")
def look(text: str) -> str:
    """Look at the text."""
    return f"looked: {text}"


class Says:
    """Answers every call with `answer`."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    @hookimpl
    def rho_before_tool_call(self) -> Any:
        return self.answer


async def _run(server: ScriptedServer, root: Path, *plugins: object, **kw: Any) -> Any:
    return await run_prompt(
        "go", endpoint=server.chat_url, root=root, tools=[store, look], plugins=list(plugins), **kw
    )


async def test_allow_runs_a_write_without_asking_and_says_so(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("store", {"text": "a"}), text_reply("done"))
    gate = approve_all()
    result = await _run(
        scripted_server, tmp_path, Says(Permission("allow", "hook: fine")), gate=gate
    )
    assert gate.requests == []
    assert [(c.outcome, c.output) for c in result.tool_calls] == [("success", "stored: a")]


async def test_ask_asks_about_a_read_and_shows_why(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("look", {"text": "a"}), text_reply("done"))
    gate = approve_all()
    await _run(scripted_server, tmp_path, Says(Permission("ask", "check this one")), gate=gate)
    [request] = gate.requests
    assert (request.tool, request.reason) == ("look", "check this one")


async def test_ask_wins_over_allow_and_a_rewrite_is_what_is_asked_about(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("store", {"text": "a"}), text_reply("done"))
    gate = approve_all()
    allow = Says(Permission("allow", arguments={"text": "rewritten"}))
    result = await _run(scripted_server, tmp_path, allow, Says(Permission("ask", "no")), gate=gate)
    [request] = gate.requests
    assert json.loads(request.arguments) == {"text": "rewritten"} and request.reason == "no"
    assert result.tool_calls[0].output == "stored: rewritten"


async def test_allow_never_passes_a_policy_deny_or_a_block(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("store", {"text": "a"}),
        tool_call_reply("look", {"text": "b"}),
        text_reply("done"),
    )
    config = RhoConfig.model_validate({"approval": {"per_tool": {"store": "deny"}}})

    class BlocksLook:
        @hookimpl
        def rho_before_tool_call(self, call: Any) -> Any:
            return Block("not this") if call.name == "look" else None

    result = await _run(
        scripted_server, tmp_path, Says(Permission("allow")), BlocksLook(), config=config
    )
    assert [c.outcome for c in result.tool_calls] == ["denied", "blocked"]
