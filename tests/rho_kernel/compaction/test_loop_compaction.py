"""Compaction inside the agent loop: past auto_compact_threshold, and after a cut-off reply."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rho_kernel import hookimpl, tool
from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import TRUNCATED_GAVE_UP, TRUNCATED_NUDGE
from rho_kernel.loop.compaction import CompactionRequest
from rho_kernel.messages import ChatMessage
from rho_kernel.session import CompactionPayload, Session
from rho_kernel.session.entries import render_entry
from rho_kernel.testing import (
    HangReply,
    ScriptedServer,
    in_memory_session,
    run_prompt,
    text_reply,
    tool_call_reply,
)


@tool(risk="read")
def big(letter: str) -> str:
    """Return a lot of one letter."""
    return (letter * 79 + "\n") * 50


def _config(threshold: int, mode: str = "mechanical") -> RhoConfig:
    return RhoConfig.model_validate(
        {
            "agent": {
                "token_budget": 4096,
                "completion_reserve": 512,
                "auto_compact_threshold": threshold,
                "compaction_mode": mode,
            }
        }
    )


def _texts(request: Any) -> str:
    return "\n".join(str(message.get("content")) for message in request.json["messages"])


async def _three_steps(
    root: Path, config: RhoConfig, session: Session, plugins: tuple[object, ...] = ()
) -> list[Any]:
    with ScriptedServer(
        [
            tool_call_reply("big", {"letter": "A"}),
            tool_call_reply("big", {"letter": "B"}),
            text_reply("done"),
        ]
    ) as server:
        result = await run_prompt(
            "read everything",
            endpoint=server.chat_url,
            root=root,
            tools=[big],
            config=config,
            session=session,
            plugins=plugins,
        )
        assert result.reply == "done"
        return server.requests


async def test_past_the_threshold_older_turns_are_compacted(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = in_memory_session(project)
    requests = await _three_steps(project, _config(50), session)
    _, second, third = (_texts(request) for request in requests)
    a_output, b_output = big("A"), big("B")
    assert a_output in second
    assert a_output not in third and b_output in third
    assert "[Compacted: 2 entries" in third
    assert "read everything" in third  # the request itself is never lost
    compactions = [e for e in session.path_entries() if isinstance(e.payload, CompactionPayload)]
    assert len(compactions) == 1
    assert "rho: compacted 2 entries" in capsys.readouterr().err


async def test_without_a_threshold_nothing_is_compacted(project: Path) -> None:
    session = in_memory_session(project)
    requests = await _three_steps(project, _config(0), session)
    assert big("A") in _texts(requests[2])
    assert not any(isinstance(e.payload, CompactionPayload) for e in session.entries.values())


class Terse:
    name = "terse"

    async def summarize(self, request: CompactionRequest) -> dict[str, Any]:
        return {"notes": f"terse: {len(request.entries)} entries"}


class TersePlugin:
    @hookimpl
    def rho_register_compaction_strategies(self) -> list[object]:
        return [Terse()]


async def test_the_loop_uses_the_strategy_compaction_mode_names(project: Path) -> None:
    session = in_memory_session(project)
    requests = await _three_steps(project, _config(50, "terse"), session, (TersePlugin(),))
    third = _texts(requests[2])
    assert "terse: 2 entries" in third
    assert "**Exploration" not in third


def _with_history(root: Path) -> Session:
    session = in_memory_session(root)
    session.append_message(ChatMessage.user("earlier question"))
    session.append_message(ChatMessage.assistant("x" * 3000))
    return session


async def test_a_cut_off_reply_is_continued_after_compaction(project: Path) -> None:
    session = _with_history(project)
    with ScriptedServer(
        [text_reply("part one, ", finish_reason="length"), text_reply("part two")]
    ) as server:
        result = await run_prompt(
            "explain", endpoint=server.chat_url, root=project, session=session, config=_config(0)
        )
        second = server.requests[1].json["messages"]
    assert result.reply == "part one, part two"
    assert result.finish_reason == "stop"
    assert second[-1] == {"role": "user", "content": TRUNCATED_NUDGE}
    assert second[-2]["content"] == "part one, "
    assert "[Compacted:" in second[1]["content"] or "[Compacted:" in second[2]["content"]
    assert not any("x" * 3000 in str(message["content"]) for message in second)


async def test_a_cut_off_reply_ends_the_turn_when_nothing_can_be_compacted(project: Path) -> None:
    with ScriptedServer([text_reply("cut", finish_reason="length")]) as server:
        result = await run_prompt("explain", endpoint=server.chat_url, root=project)
        assert len(server.requests) == 1
    assert result.reply == f"cut\n\n{TRUNCATED_GAVE_UP}"
    assert result.finish_reason == "stop"


async def test_a_reply_cut_off_twice_is_not_retried_again(project: Path) -> None:
    session = _with_history(project)
    with ScriptedServer(
        [
            text_reply("one ", finish_reason="length"),
            text_reply("two", finish_reason="length"),
            text_reply("never"),
        ]
    ) as server:
        result = await run_prompt(
            "explain", endpoint=server.chat_url, root=project, session=session
        )
        assert len(server.requests) == 2
    assert result.reply == f"one two\n\n{TRUNCATED_GAVE_UP}"


async def test_an_abort_during_llm_compaction_writes_the_mechanical_one_and_ends(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = in_memory_session(project)
    cancel = CancelToken()
    with ScriptedServer(
        [
            tool_call_reply("big", {"letter": "A"}),
            tool_call_reply("big", {"letter": "B"}),
            HangReply(30),  # the llm strategy's summary request
            text_reply("never"),
        ]
    ) as server:
        task = asyncio.create_task(
            run_prompt(
                "read everything",
                endpoint=server.chat_url,
                root=project,
                tools=[big],
                config=_config(50, "llm"),
                session=session,
                cancel=cancel,
            )
        )
        await asyncio.to_thread(server.wait_for_requests, 3)
        cancel.cancel()
        result = await asyncio.wait_for(task, 5)
        assert len(server.requests) == 3
    assert result.finish_reason == "cancelled"
    assert "compaction strategy 'llm' was cancelled" in capsys.readouterr().err
    (compaction,) = [e for e in session.path_entries() if isinstance(e.payload, CompactionPayload)]
    assert "**Exploration" in render_entry(compaction).text  # type: ignore[union-attr]
