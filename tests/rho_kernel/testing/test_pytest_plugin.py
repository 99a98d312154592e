"""The pytest plugin's fixtures, used exactly as a third-party plugin author would."""

from __future__ import annotations

from pathlib import Path

from rho_kernel import tool
from rho_kernel.testing import FixedGate, ScriptedServer, run_prompt, text_reply, tool_call_reply


@tool(risk="write")
def mark(word: str) -> str:
    """Mark a word."""
    return f"*{word}*"


async def test_fixtures_drive_a_plugin_tool(
    scripted_server: ScriptedServer, rho_root: Path, approve_gate: FixedGate
) -> None:
    assert (rho_root / ".git").is_dir()
    scripted_server.add(tool_call_reply("mark", {"word": "hi"}), text_reply("done"))
    result = await run_prompt(
        "mark hi", endpoint=scripted_server.chat_url, root=rho_root, tools=[mark], gate=approve_gate
    )
    assert result.tool_calls[0].output == "*hi*"
    assert [r.tool for r in approve_gate.requests] == ["mark"]


async def test_deny_gate_fixture(
    scripted_server: ScriptedServer, rho_root: Path, deny_gate: FixedGate
) -> None:
    scripted_server.add(tool_call_reply("mark", {"word": "hi"}), text_reply("done"))
    result = await run_prompt(
        "mark hi", endpoint=scripted_server.chat_url, root=rho_root, tools=[mark], gate=deny_gate
    )
    assert result.tool_calls[0].outcome == "denied"
