"""The approval policy through the real loop: first answer wins, a non-mode answer asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel import hookimpl, tool
from rho_kernel.testing import ScriptedServer, approve_all, run_prompt, text_reply, tool_call_reply


@tool(risk="read")
def look() -> str:
    """Look around."""
    return "looked"


class Answers:
    """A policy plugin answering every call with `mode`, counting its calls."""

    def __init__(self, mode: object) -> None:
        self.mode = mode
        self.calls = 0

    @hookimpl
    def rho_approval_policy(self) -> object:
        self.calls += 1
        return self.mode


@pytest.mark.parametrize("mode", ["yes", True, "Ask", 1])
async def test_a_policy_answer_that_is_no_mode_asks_and_is_reported(
    scripted_server: ScriptedServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mode: object,
) -> None:
    scripted_server.add(tool_call_reply("look", {}), text_reply("done"))
    gate = approve_all()
    result = await run_prompt(
        "look",
        endpoint=scripted_server.chat_url,
        root=tmp_path,
        tools=[look],
        plugins=[Answers(mode)],
        gate=gate,
    )
    assert [r.tool for r in gate.requests] == ["look"]
    assert result.tool_calls[0].output == "looked"
    err = capsys.readouterr().err
    assert "plugin 'test-plugin-0' answered rho_approval_policy for look with" in err
    assert "the call asks" in err


async def test_the_first_policy_answer_decides_and_later_policies_are_not_asked(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("look", {}), text_reply("done"))
    later, first = Answers("auto"), Answers("deny")
    result = await run_prompt(
        "look",
        endpoint=scripted_server.chat_url,
        root=tmp_path,
        tools=[look],
        plugins=[later, first],
    )
    assert result.tool_calls[0].outcome == "denied"
    assert (first.calls, later.calls) == (1, 0)
