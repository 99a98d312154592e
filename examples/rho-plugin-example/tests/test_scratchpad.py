"""Scratchpad keeps its notes across calls and prompts, and checks what the model sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

from rho_plugin_example import Scratchpad


async def _call(
    server: ScriptedServer, root: Path, pad: Scratchpad, arguments: dict[str, Any] | str
) -> tuple[str, str]:
    server.add(tool_call_reply("scratchpad", arguments), text_reply("ok"))
    result = await run_prompt("note it", endpoint=server.chat_url, root=root, tools=[pad])
    (call,) = result.tool_calls
    return call.outcome, call.output or ""


async def test_notes_last_across_prompts(scripted_server: ScriptedServer, rho_root: Path):
    pad = Scratchpad()
    assert await _call(scripted_server, rho_root, pad, {}) == ("success", "No notes.")
    await _call(scripted_server, rho_root, pad, {"add": "tests live in tests/"})
    outcome, output = await _call(scripted_server, rho_root, pad, {"add": " run ruff "})
    assert (outcome, output) == ("success", "1. tests live in tests/\n2. run ruff")
    _, output = await _call(scripted_server, rho_root, pad, {"clear": True, "add": "fresh"})
    assert output == "1. fresh"


async def test_only_the_newest_notes_are_kept(scripted_server: ScriptedServer, rho_root: Path):
    pad = Scratchpad()
    pad.notes = [f"note {n}" for n in range(Scratchpad.MAX_NOTES)]
    _, output = await _call(scripted_server, rho_root, pad, {"add": "newest"})
    lines = output.splitlines()
    assert len(lines) == Scratchpad.MAX_NOTES
    assert lines[0] == "1. note 1" and lines[-1] == f"{Scratchpad.MAX_NOTES}. newest"


async def test_bad_arguments_are_errors_and_change_nothing(
    scripted_server: ScriptedServer, rho_root: Path
):
    pad = Scratchpad()
    pad.notes = ["keep me"]
    for arguments, problem in [
        ({"add": 7}, "must be a string"),
        ({"clear": "yes"}, "true or false"),
        ({"add": "   "}, "must not be empty"),
        ({"add": "x" * 501}, "at most 500"),
        ({"remove": 1}, "unknown argument(s): remove"),
    ]:
        outcome, output = await _call(scripted_server, rho_root, pad, arguments)
        assert outcome == "error" and problem in output, (arguments, output)
    assert pad.notes == ["keep me"]
