"""What a turn tells its observers and returns: the reply as the assistant wrote it, every call
of a batch announced with its outcome (also when the turn stops half-way), and one turn id
on every event of the turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rho_kernel import ToolContext, tool
from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.approval import ApprovalDecision, ApprovalRequest
from rho_kernel.loop.result import AgentResult
from rho_kernel.messages import ChatMessage
from rho_kernel.testing import (
    RecordingObserver,
    ScriptedServer,
    approve_all,
    in_memory_session,
    redirect_all,
    run_prompt,
    text_reply,
    tool_calls_reply,
)

ran: list[str] = []


@tool(risk="write")
def store(key: str) -> str:
    """Store a key."""
    ran.append(key)
    return "stored"


@tool(risk="read")
def lookup(key: str) -> str:
    """Look a key up."""
    ran.append(key)
    return f"value of {key}"


started = asyncio.Event()


@tool(risk="read")
async def wait_forever(ctx: ToolContext) -> str:
    """Run until cancelled."""
    started.set()
    await asyncio.Event().wait()
    return "never"


@pytest.fixture(autouse=True)
def _reset() -> None:
    global started
    ran.clear()
    started = asyncio.Event()  # one per test: an event is bound to the loop that waits on it


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


class PendingGate:
    """Holds every approval until the test decides: `asked` is set when the first comes."""

    def __init__(self, decision: ApprovalDecision | None = None) -> None:
        self.asked = asyncio.Event()
        self.decision = decision
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        self.asked.set()
        if self.decision is not None:
            return self.decision
        await asyncio.Event().wait()  # until the turn is cancelled
        raise AssertionError("unreachable")


def _config(**agent: object) -> RhoConfig:
    return RhoConfig.model_validate({"agent": {"initial_backoff_ms": 1, **agent}})


def _three_calls() -> Any:
    return tool_calls_reply(
        [("store", {"key": "a"}), ("store", {"key": "b"}), ("lookup", {"key": "c"})],
        call_ids=["call_a", "call_b", "call_c"],
    )


def _announced(observer: RecordingObserver) -> tuple[list[Any], list[Any]]:
    return observer.call_ids("on_tool_call"), observer.call_ids("on_tool_result")


async def _cancel_when(event: asyncio.Event, cancel: CancelToken, task: Any) -> AgentResult:
    await asyncio.wait_for(event.wait(), 20)
    cancel.cancel()
    return await asyncio.wait_for(task, 20)


# ── item: the reply is the assistant's text ────────────────────────────────


async def test_the_reply_is_the_streamed_text_without_a_reasoning_note(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(text_reply("The answer is 42.", reasoning="x" * 20))
    observer = RecordingObserver()
    session = in_memory_session(tmp_path)
    result = await run_prompt(
        "q", endpoint=server.chat_url, root=tmp_path, observers=[observer], session=session
    )
    streamed = "".join(args[0] for name, args in observer.events if name == "on_text_delta")
    assert result.reply == streamed == "The answer is 42."
    assert session.path_messages()[-1].text == result.reply
    assert result.reasoning is None


async def test_show_reasoning_gives_the_reasoning_apart_from_the_reply(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(text_reply("answer", reasoning="think"))
    result = await run_prompt(
        "q", endpoint=server.chat_url, root=tmp_path, config=_config(show_reasoning=True)
    )
    assert result.reply == "answer"
    assert result.reasoning == "think"


async def test_a_continued_reply_joins_the_texts_only(
    server: ScriptedServer, tmp_path: Path
) -> None:
    # A reply cut at the token limit is continued after a compaction: both parts are text.
    session = in_memory_session(tmp_path)
    session.append_message(ChatMessage.user("earlier question"))
    session.append_message(ChatMessage.assistant("x" * 3000))
    server.add(
        text_reply("part one, ", reasoning="r" * 40, finish_reason="length"),
        text_reply("part two", reasoning="s" * 40),
    )
    result = await run_prompt(
        "q",
        endpoint=server.chat_url,
        root=tmp_path,
        session=session,
        config=_config(token_budget=4096, completion_reserve=512),
    )
    assert result.reply == "part one, part two"


# ── item: every call of a batch is announced with its outcome ─────────────


async def test_abort_while_an_approval_waits_announces_every_call(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(_three_calls())
    gate = PendingGate()
    observer = RecordingObserver()
    cancel = CancelToken()
    task = asyncio.create_task(
        run_prompt(
            "s",
            endpoint=server.chat_url,
            root=tmp_path,
            tools=[store, lookup],
            gate=gate,
            observers=[observer],
            cancel=cancel,
        )
    )
    result = await _cancel_when(gate.asked, cancel, task)
    assert result.finish_reason == "cancelled" and ran == []
    assert _announced(observer) == (["call_a", "call_b", "call_c"],) * 2
    assert [(r.call_id, r.outcome) for r in result.tool_calls] == [
        ("call_a", "cancelled"),
        ("call_b", "cancelled"),
        ("call_c", "cancelled"),
    ]
    outputs = [r.output for r in result.tool_calls]
    assert outputs == ["Tool call cancelled."] + ["Tool call cancelled before it ran."] * 2
    assert len(server.requests) == 1


async def test_abort_during_the_first_of_several_auto_approved_calls(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(
        tool_calls_reply(
            [("wait_forever", {}), ("lookup", {"key": "x"}), ("lookup", {"key": "y"})],
            call_ids=["call_w", "call_x", "call_y"],
        )
    )
    observer = RecordingObserver()
    cancel = CancelToken()
    session = in_memory_session(tmp_path)
    task = asyncio.create_task(
        run_prompt(
            "s",
            endpoint=server.chat_url,
            root=tmp_path,
            tools=[wait_forever, lookup],
            observers=[observer],
            cancel=cancel,
            session=session,
        )
    )
    result = await _cancel_when(started, cancel, task)
    assert ran == []
    assert _announced(observer) == (["call_w", "call_x", "call_y"],) * 2
    assert [r.outcome for r in result.tool_calls] == ["cancelled"] * 3
    tool_messages = [m for m in session.path_messages() if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["call_w", "call_x", "call_y"]


async def test_a_redirect_announces_the_calls_it_skips(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(_three_calls(), text_reply("redirected"))
    observer = RecordingObserver()
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store, lookup],
        gate=redirect_all("do something else"),
        observers=[observer],
    )
    assert ran == []
    assert _announced(observer) == (["call_a", "call_b", "call_c"],) * 2
    assert [(r.outcome, r.output) for r in result.tool_calls] == [
        ("denied", "Tool call redirected by user."),
        ("cancelled", "Tool call skipped: the user redirected the turn."),
        ("cancelled", "Tool call skipped: the user redirected the turn."),
    ]


# ── item: the client going away is not a denial ────────────────────────────


async def test_a_gate_that_cancels_ends_the_turn_without_another_request(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(_three_calls(), text_reply("must not be asked"))
    gate = PendingGate(ApprovalDecision.cancelled("the client went away"))
    observer = RecordingObserver()
    session = in_memory_session(tmp_path)
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store, lookup],
        gate=gate,
        observers=[observer],
        session=session,
    )
    assert result.finish_reason == "cancelled"
    assert len(server.requests) == 1 and ran == []
    assert "on_tool_denied" not in observer.names()
    first, *rest = result.tool_calls
    assert first.outcome == "cancelled"
    assert first.output == "Tool call cancelled: the client went away."
    assert [r.outcome for r in rest] == ["cancelled", "cancelled"]
    texts = [m.text for m in session.path_messages() if m.role == "tool"]
    assert not any("denied" in text for text in texts) and len(texts) == 3


async def test_without_a_gate_the_call_is_not_said_to_be_denied_by_a_user(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(_three_calls(), text_reply("fine"))
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, tools=[store, lookup])
    first = result.tool_calls[0]
    assert first.outcome == "denied" and "by user" not in str(first.output)
    assert (
        first.output == "Tool call denied: no one is there to approve it (this run has no "
        "approval gate)."
    )


# ── item: one turn id on every event of a turn ─────────────────────────────


async def test_every_event_of_a_turn_carries_its_turn_id(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(
        tool_calls_reply([("store", {"key": "a"})], call_ids=["call_a"]),
        text_reply("done", reasoning="hmm"),
        text_reply("second"),
    )
    observer = RecordingObserver()
    session = in_memory_session(tmp_path)
    first = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store],
        gate=approve_all(),
        observers=[observer],
        session=session,
    )
    count = len(observer.events)
    second = await run_prompt(
        "t", endpoint=server.chat_url, root=tmp_path, observers=[observer], session=session
    )
    assert first.turn_id and second.turn_id and first.turn_id != second.turn_id
    names = set(observer.names()[:count])
    assert {"on_agent_start", "on_tool_call", "on_approval_requested", "on_tool_result"} <= names
    assert {"on_usage", "on_text_delta", "on_reasoning_delta", "on_agent_end"} <= names
    turn_ids = [keywords.get("turn_id") for keywords in observer.keywords]
    assert turn_ids[:count] == [first.turn_id] * count
    assert turn_ids[count:] == [second.turn_id] * (len(turn_ids) - count)


async def test_a_failed_turn_names_its_turn_id(server: ScriptedServer, tmp_path: Path) -> None:
    from rho_kernel.loop.result import AgentError
    from rho_kernel.testing import ErrorReply

    server.add(ErrorReply(400, {"error": {"message": "bad request"}}))
    observer = RecordingObserver()
    with pytest.raises(AgentError) as failure:
        await run_prompt("s", endpoint=server.chat_url, root=tmp_path, observers=[observer])
    start = observer.keywords[observer.names().index("on_agent_start")]["turn_id"]
    error = observer.keywords[observer.names().index("on_agent_error")]["turn_id"]
    assert failure.value.turn_id == start == error
