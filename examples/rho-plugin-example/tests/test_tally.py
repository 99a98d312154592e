"""CallTally reports a prompt's tool calls on stderr when the prompt ends."""

from __future__ import annotations

from pathlib import Path

import pytest
from rho_kernel.testing import (
    ScriptedServer,
    run_prompt,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)

from rho_plugin_example import CallTally, Scratchpad, word_count


async def test_counts_each_tool_and_reports_at_the_end(
    scripted_server: ScriptedServer, rho_root: Path, capsys: pytest.CaptureFixture[str]
):
    (rho_root / "a.txt").write_text("a\n")
    scripted_server.add(
        tool_calls_reply([("word_count", {"path": "a.txt"}), ("scratchpad", {"add": "a"})]),
        tool_call_reply("word_count", {"path": "missing.txt"}),
        text_reply("done"),
    )
    tally = CallTally()
    await run_prompt(
        "count",
        endpoint=scripted_server.chat_url,
        root=rho_root,
        tools=[word_count, Scratchpad()],
        observers=[tally],
    )
    assert dict(tally.calls) == {"word_count": 2, "scratchpad": 1}
    captured = capsys.readouterr()
    assert "rho: tool calls: scratchpad 1, word_count 2\n" in captured.err
    assert "tool calls" not in captured.out


async def test_a_prompt_without_tool_calls_reports_nothing(
    scripted_server: ScriptedServer, rho_root: Path, capsys: pytest.CaptureFixture[str]
):
    scripted_server.add(text_reply("hello"))
    await run_prompt(
        "hi", endpoint=scripted_server.chat_url, root=rho_root, observers=[CallTally()]
    )
    assert "tool calls" not in capsys.readouterr().err
