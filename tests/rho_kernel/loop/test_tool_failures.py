"""A tool's failure text is bounded before it is kept: a 20 MB exception message reaches
neither the model, nor the client, nor the session file whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel import ChatMessage, ToolError, tool
from rho_kernel.context.bounding import MAX_ERROR_BYTES, bound_error
from rho_kernel.session import Session
from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

HUGE = 20_000_000


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with ScriptedServer() as scripted:
        yield scripted


def test_a_short_failure_is_left_as_it_is() -> None:
    assert bound_error("no such key") == "no such key"
    assert bound_error("x" * MAX_ERROR_BYTES) == "x" * MAX_ERROR_BYTES


def test_a_long_failure_keeps_its_head_and_tail_and_says_how_much_was_left_out() -> None:
    text = "start " + "é" * HUGE + " end"
    bounded = bound_error(text, 1000)
    assert bounded.startswith("start é") and bounded.endswith("é end")
    assert len(bounded.encode()) < 1100
    head, note, tail = bounded.split("\n")
    total = len(text.encode())
    left_out = total - len(head.encode()) - len(tail.encode())
    assert note == f"[… {left_out} of {total} bytes of the error left out …]"


@pytest.mark.parametrize("raised", [ToolError, ValueError])
async def test_a_tool_failing_with_20_mb_keeps_a_bounded_text_in_the_session(
    server: ScriptedServer, tmp_path: Path, raised: type[Exception]
) -> None:
    @tool(risk="read")
    def flood() -> str:
        """Fail with a huge message."""
        raise raised("E" * HUGE)

    project = tmp_path / "project"
    project.mkdir()
    session = Session.create(project, home=tmp_path / "home")
    session.append_message(ChatMessage.system("You are a test assistant."))
    server.add(tool_call_reply("flood", {}), text_reply("k"))
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=project, tools=[flood], session=session
    )
    output = result.tool_calls[0].output
    assert result.tool_calls[0].outcome == "error"
    assert len(output.encode()) <= MAX_ERROR_BYTES + 200
    assert "bytes of the error left out" in output
    path = session.path
    session.close()
    assert path is not None and path.stat().st_size < 4 * MAX_ERROR_BYTES
