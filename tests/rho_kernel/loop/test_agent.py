"""The agent loop in-process, against the scripted server over real HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_kernel import Block, Rewrite, Risk, ToolContext, ToolResult, hookimpl, tool
from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import EMPTY_REPLY_NUDGE
from rho_kernel.loop.observer import Observer
from rho_kernel.loop.result import AgentError, AgentResult
from rho_kernel.loop.steering import SteeringQueue
from rho_kernel.testing import (
    ErrorReply,
    HangReply,
    RecordingObserver,
    ScriptedServer,
    approve_all,
    deny_all,
    in_memory_session,
    redirect_all,
    run_prompt,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)

calls: list[str] = []


@tool(risk="read")
def lookup(key: str) -> str:
    """Look a key up."""
    calls.append(key)
    return f"value of {key}"


@tool(risk="write")
def store(key: str) -> str:
    """Store a key."""
    calls.append(f"store:{key}")
    return "stored"


#: Set by `slow` once it runs (a fresh event per test).
slow_started = asyncio.Event()


@tool(risk="read")
async def slow(ctx: ToolContext) -> str:
    """Wait a long time."""
    slow_started.set()
    await asyncio.sleep(30)
    return "never"


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    global slow_started
    calls.clear()
    slow_started = asyncio.Event()


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


def _config(**agent: object) -> RhoConfig:
    return RhoConfig.model_validate({"agent": {"initial_backoff_ms": 1, **agent}})


async def test_text_reply_ends_with_stop(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(
        text_reply(
            "hello there", usage={"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
        )
    )
    observer = RecordingObserver()
    result = await run_prompt("hi", endpoint=server.chat_url, root=tmp_path, observers=[observer])
    assert result.reply == "hello there"
    assert result.finish_reason == "stop"
    assert result.iterations == 1
    assert result.usage.tokens.input_tokens == 12
    assert result.usage.request_count == 1
    names = observer.names()
    assert names[0] == "on_agent_start"
    assert names[-1] == "on_agent_end"
    assert ("on_state_change", ("thinking",)) in observer.events
    assert observer.events[-2] == ("on_state_change", ("idle",))
    body = server.requests[0].json
    assert body["model"] == "test-model"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


async def test_read_tool_runs_without_asking_and_result_goes_back(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(tool_call_reply("lookup", {"key": "k1"}, call_id="c1"), text_reply("done"))
    gate = deny_all()
    session = in_memory_session(tmp_path)
    result = await run_prompt(
        "go", endpoint=server.chat_url, root=tmp_path, tools=[lookup], gate=gate, session=session
    )
    assert calls == ["k1"]
    assert gate.requests == []
    assert result.reply == "done"
    assert result.iterations == 2
    assert [r.outcome for r in result.tool_calls] == ["success"]
    second = server.requests[1].json["messages"]
    assert second[-1] == {"role": "tool", "content": "value of k1", "tool_call_id": "c1"}
    assert second[-2]["tool_calls"][0]["function"] == {
        "name": "lookup",
        "arguments": '{"key": "k1"}',
    }
    roles = [m.role for m in session.path_messages()]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]


async def test_write_tool_asks_and_denial_continues(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(tool_call_reply("store", {"key": "x"}), text_reply("ok, not stored"))
    gate = deny_all()
    observer = RecordingObserver()
    result = await run_prompt(
        "store x",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store],
        gate=gate,
        observers=[observer],
    )
    assert calls == []
    assert [r.tool for r in gate.requests] == ["store"]
    assert gate.requests[0].risk is Risk.WRITE
    assert result.tool_calls[0].outcome == "denied"
    assert ("on_tool_denied", ("store",)) in observer.events
    assert server.requests[1].json["messages"][-1]["content"] == "Tool call denied by user."
    assert result.finish_reason == "stop"


async def test_approved_write_runs(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(tool_call_reply("store", {"key": "x"}), text_reply("stored"))
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, tools=[store], gate=approve_all()
    )
    assert calls == ["store:x"]
    assert result.tool_calls[0].outcome == "success"
    assert result.tool_calls[0].duration_ms is not None


async def test_no_gate_means_denied(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(tool_call_reply("store", {"key": "x"}), text_reply("k"))
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, tools=[store])
    assert calls == [] and result.tool_calls[0].outcome == "denied"


@pytest.mark.parametrize(
    ("mode", "ran", "asked"), [("auto", True, False), ("deny", False, False), ("ask", True, True)]
)
async def test_per_tool_override(
    server: ScriptedServer, tmp_path: Path, mode: str, ran: bool, asked: bool
) -> None:
    server.add(tool_call_reply("store", {"key": "x"}), text_reply("k"))
    gate = approve_all()
    config = RhoConfig.model_validate({"approval": {"per_tool": {"store": mode}}})
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, tools=[store], gate=gate, config=config
    )
    assert (calls == ["store:x"]) is ran
    assert bool(gate.requests) is asked
    if mode == "deny":
        assert result.tool_calls[0].outcome == "denied"
        assert "denied by policy" in result.tool_calls[0].output


async def test_per_tool_ask_applies_to_read_tools(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(tool_call_reply("lookup", {"key": "x"}), text_reply("k"))
    gate = deny_all()
    config = RhoConfig.model_validate({"approval": {"per_tool": {"lookup": "ask"}}})
    await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, tools=[lookup], gate=gate, config=config
    )
    assert calls == [] and len(gate.requests) == 1


async def test_redirect_abandons_the_batch_and_adds_a_user_turn(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(
        tool_calls_reply([("store", {"key": "a"}), ("lookup", {"key": "b"})]),
        text_reply("redirected"),
    )
    observer = RecordingObserver()
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store, lookup],
        gate=redirect_all("use the other file"),
        observers=[observer],
    )
    assert calls == []
    assert "on_tool_denied" not in observer.names()
    messages = server.requests[1].json["messages"]
    assert [m["role"] for m in messages[-4:]] == ["assistant", "tool", "tool", "user"]
    assert messages[-3]["content"] == "Tool call redirected by user."
    assert messages[-1]["content"] == "use the other file"
    assert result.reply == "redirected"


async def test_unknown_tool_and_invalid_json_become_error_results(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(
        tool_calls_reply([("nope", {}), ("lookup", '{"key": ')]),
        text_reply("recovered"),
    )
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, tools=[lookup])
    assert result.reply == "recovered"
    first, second = result.tool_calls
    assert (
        first.outcome == "error"
        and "unknown tool 'nope'" in first.output
        and "lookup" in first.output
    )
    assert second.outcome == "error" and "not valid JSON" in second.output
    results = [m for m in server.requests[1].json["messages"] if m["role"] == "tool"]
    assert len(results) == 2


async def test_invalid_arguments_become_an_error_result(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(tool_call_reply("lookup", {"wrong": 1}), text_reply("k"))
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, tools=[lookup])
    assert result.tool_calls[0].outcome == "error"
    assert "invalid arguments" in result.tool_calls[0].output


async def test_a_raising_tool_becomes_an_error_result(
    server: ScriptedServer, tmp_path: Path
) -> None:
    @tool(risk="read")
    def explode() -> str:
        """Fail."""
        raise ValueError("kaput")

    server.add(tool_call_reply("explode", {}), text_reply("k"))
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, tools=[explode])
    assert result.tool_calls[0].output == "explode: ValueError: kaput"


async def test_max_iterations(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(tool_call_reply("lookup", {"key": "a"}), tool_call_reply("lookup", {"key": "b"}))
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[lookup],
        config=_config(max_iterations=2),
    )
    assert result.finish_reason == "max_iterations"
    assert result.iterations == 2
    assert calls == ["a", "b"]


async def test_cancel_interrupts_a_model_request_in_flight(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(HangReply(30))
    cancel = CancelToken()
    task = asyncio.create_task(
        run_prompt("s", endpoint=server.chat_url, root=tmp_path, cancel=cancel)
    )
    await asyncio.to_thread(server.wait_for_requests, 1)
    cancel.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.finish_reason == "cancelled"


async def test_cancel_during_a_tool_answers_every_call(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(tool_calls_reply([("slow", {}), ("lookup", {"key": "a"})]))
    cancel = CancelToken()
    session = in_memory_session(tmp_path)
    task = asyncio.create_task(
        run_prompt(
            "s",
            endpoint=server.chat_url,
            root=tmp_path,
            tools=[slow, lookup],
            cancel=cancel,
            session=session,
        )
    )
    await asyncio.wait_for(slow_started.wait(), 60)  # the first call is running
    cancel.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.finish_reason == "cancelled"
    assert calls == []
    tool_messages = [m for m in session.path_messages() if m.role == "tool"]
    assert [m.text for m in tool_messages] == [
        "Tool call cancelled.",
        "Tool call cancelled before it ran.",
    ]


async def test_retry_then_success(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(ErrorReply(503, {"error": {"message": "busy"}}), text_reply("finally"))
    result = await run_prompt("s", endpoint=server.chat_url, root=tmp_path, config=_config())
    assert result.reply == "finally" and len(server.requests) == 2


async def test_retry_budget_exhausted_is_a_provider_failure(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(*[ErrorReply(500, {"error": {"message": "down"}}) for _ in range(3)])
    session = in_memory_session(tmp_path)
    with pytest.raises(AgentError) as info:
        await run_prompt(
            "s",
            endpoint=server.chat_url,
            root=tmp_path,
            config=_config(retry_budget=2),
            session=session,
        )
    assert len(server.requests) == 3
    failure = info.value.failure
    assert failure is not None
    assert (failure.kind, failure.status, failure.attempts) == ("http", 500, 3)
    assert info.value.category == "client" and "tried 3 times" in info.value.message
    assert session.read_custom("rho.turn_error.v1")["category"] == "client"


async def test_client_error_is_an_agent_error_recorded_in_the_session(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(ErrorReply(400, {"error": {"message": "model not found"}}))
    session = in_memory_session(tmp_path)
    with pytest.raises(AgentError, match="model not found"):
        await run_prompt("s", endpoint=server.chat_url, root=tmp_path, session=session)
    assert "model not found" in session.read_custom("rho.turn_error.v1")["error"]


async def test_unreachable_endpoint_is_an_agent_error_naming_it(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/v1/chat/completions"
    with pytest.raises(AgentError) as info:
        await run_prompt("s", endpoint=endpoint, root=tmp_path, config=_config(retry_budget=1))
    assert endpoint in info.value.message


async def test_consecutive_empty_responses(server: ScriptedServer, tmp_path: Path) -> None:
    server.add(text_reply(""), text_reply(""))
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, config=_config(max_consecutive_empty=2)
    )
    assert result.finish_reason == "consecutive_empty_responses"
    assert server.requests[1].json["messages"][-1]["content"] == EMPTY_REPLY_NUDGE


async def test_interception_blocks_and_rewrites(server: ScriptedServer, tmp_path: Path) -> None:
    class Guard:
        @hookimpl
        def rho_before_tool_call(self, call, arguments):  # type: ignore[no-untyped-def]
            if arguments.get("key") == "secret":
                return Block("no secrets")
            return Rewrite({"key": arguments["key"].upper()})

    class After:
        @hookimpl
        def rho_after_tool_call(self, result):  # type: ignore[no-untyped-def]
            return ToolResult(result.output + "!", result.is_error)

    server.add(
        tool_calls_reply([("lookup", {"key": "secret"}), ("lookup", {"key": "b"})]), text_reply("k")
    )
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, tools=[lookup], plugins=[Guard(), After()]
    )
    assert calls == ["B"]
    assert result.tool_calls[0].outcome == "blocked"
    assert result.tool_calls[0].output == "Tool call blocked: no secrets"
    assert result.tool_calls[1].output == "value of B!"


async def test_steering_is_injected_at_the_batch_seam(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(tool_call_reply("lookup", {"key": "a"}), text_reply("k"))
    steering = SteeringQueue()

    class Steerer(Observer):
        async def on_tool_call(self, name: str, arguments: str) -> None:
            assert steering.push("also check b")

    await _run_with_steering(server, tmp_path, steering, Steerer())
    last = server.requests[1].json["messages"]
    assert [m["role"] for m in last[-2:]] == ["tool", "user"]
    assert last[-1]["content"] == "also check b"
    assert len(steering) == 0 and steering.push("late") is False


async def test_steering_after_the_final_answer_gets_one_more_round(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(text_reply("first"), text_reply("second"))
    steering = SteeringQueue()

    class Steerer(Observer):
        async def on_text_delta(self, delta: str) -> None:
            if delta == "first":
                assert steering.push("and one more thing")

    result = await _run_with_steering(server, tmp_path, steering, Steerer())
    assert result.reply == "second" and result.iterations == 2
    assert server.requests[1].json["messages"][-1] == {
        "role": "user",
        "content": "and one more thing",
    }
    assert steering.push("too late") is False


async def _run_with_steering(
    server: ScriptedServer, tmp_path: Path, steering: SteeringQueue, observer: Observer
) -> AgentResult:
    from rho_kernel.loop.agent import LoopParams, run_loop
    from rho_kernel.plugins import PluginHost
    from rho_kernel.providers.chat_completions import ChatCompletionsService
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.tools import ToolRegistry

    registry = ToolRegistry()
    registry.register(lookup, "test")
    host = PluginHost(autoload=False)
    host.load_defaults()
    service = ChatCompletionsService(server.chat_url, None, "scripted")
    params = LoopParams(
        service=service,
        model="m",
        tools=registry,
        plugins=host,
        config=RhoConfig(),
        root=SandboxRoot(tmp_path),
        steering=steering,
        observers=[observer],
    )
    try:
        return await run_loop(in_memory_session(tmp_path), "s", params)
    finally:
        await service.aclose()


async def test_an_unexpected_failure_becomes_an_agent_error(
    server: ScriptedServer, tmp_path: Path
) -> None:
    # Fault injection: a full disk cannot be produced for real inside the test sandbox.
    session = in_memory_session(tmp_path)
    server.add(text_reply("never stored"))
    original = session.append_message

    def failing_append(message):  # type: ignore[no-untyped-def]
        if message.role == "assistant":
            raise OSError(28, "No space left on device")
        return original(message)

    session.append_message = failing_append  # type: ignore[method-assign]
    observer = RecordingObserver()
    with pytest.raises(AgentError, match="No space left") as info:
        await run_prompt(
            "s", endpoint=server.chat_url, root=tmp_path, session=session, observers=[observer]
        )
    assert info.value.category == "session"
    assert observer.names()[-2:] == ["on_state_change", "on_agent_error"]
    assert session.read_custom("rho.turn_error.v1")["category"] == "session"


@tool(risk="write")
def store_text(key: str) -> str:
    """Store a key (returns text with a lone surrogate, as a broken tool might)."""
    return f"stored {key} \udc80"


async def test_the_approver_sees_the_rewritten_arguments_that_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    class Upper:
        @hookimpl
        def rho_before_tool_call(self, call, arguments, tool):  # type: ignore[no-untyped-def]
            return Rewrite({"key": arguments["key"].upper()})

    gate = approve_all()
    server.add(tool_call_reply("store_text", '{"key":  "abc"}'), text_reply("ok"))
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[store_text],
        plugins=[Upper()],
        gate=gate,
    )
    assert [r.arguments for r in gate.requests] == ['{"key": "ABC"}']
    assert gate.requests[0].approval_id.startswith("ap_")
    assert result.tool_calls[0].output == "stored ABC \ufffd"
    sent = server.requests[1].json["messages"][-1]
    assert sent == {
        "role": "tool",
        "content": "stored ABC \ufffd",
        "tool_call_id": "call_scripted_0",
    }


async def test_observers_get_call_ids_only_when_they_declare_them(
    server: ScriptedServer, tmp_path: Path
) -> None:
    seen: list[tuple[str, ...]] = []

    class Old(Observer):
        async def on_tool_call(self, name: str, arguments: str) -> None:  # type: ignore[override]
            seen.append(("old", name))

    class New(Observer):
        async def on_tool_call(self, name: str, arguments: str, call_id: str | None = None) -> None:
            seen.append(("new", name, str(call_id)))

        async def on_tool_result(self, name: str, result: ToolResult, **extra: object) -> None:  # type: ignore[override]
            seen.append(("result", name, str(extra["call_id"])))

    recorder = RecordingObserver()
    server.add(tool_call_reply("lookup", {"key": "a"}, call_id="call_7"), text_reply("k"))
    await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[lookup],
        observers=[Old(), New(), recorder],
    )
    assert seen == [("old", "lookup"), ("new", "lookup", "call_7"), ("result", "lookup", "call_7")]
    assert recorder.call_ids("on_tool_call") == recorder.call_ids("on_tool_result") == ["call_7"]


@tool(risk="read")
async def chatty(*, ctx: ToolContext) -> str:
    """Report progress while running."""
    await ctx.report_output("stdout", "step 1\n")
    await ctx.report_output("stderr", "bad \udc80\n")
    await ctx.report_output("stdout", "")
    return f"done {ctx.call_id}"


async def test_live_output_reaches_observers_with_the_call_id(
    server: ScriptedServer, tmp_path: Path
) -> None:
    recorder = RecordingObserver()
    server.add(tool_call_reply("chatty", {}, call_id="call_9"), text_reply("k"))
    result = await run_prompt(
        "s", endpoint=server.chat_url, root=tmp_path, tools=[chatty], observers=[recorder]
    )
    outputs = [args for name, args in recorder.events if name == "on_tool_output"]
    assert outputs == [("chatty", "stdout", "step 1\n"), ("chatty", "stderr", "bad \ufffd\n")]
    assert recorder.call_ids("on_tool_output") == ["call_9", "call_9"]
    assert result.tool_calls[0].output == "done call_9"


async def test_a_prompt_closes_calls_left_open_on_the_path(
    server: ScriptedServer, tmp_path: Path
) -> None:
    from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
    from rho_kernel.session import CANCELLED_TOOL_CALL

    session = in_memory_session(tmp_path)
    session.append_message(ChatMessage.user("look"))
    open_calls = [
        ToolCall(id=call_id, function=FunctionCall(name="lookup", arguments='{"key": "k"}'))
        for call_id in ("call_a", "call_b")
    ]
    session.append_message(ChatMessage.assistant("", tool_calls=open_calls))
    session.append_message(ChatMessage.tool_result("call_a", "value of k", False))
    server.add(text_reply("fine"))
    result = await run_prompt(
        "go on", endpoint=server.chat_url, root=tmp_path, tools=[lookup], session=session
    )
    assert result.reply == "fine"
    messages = server.requests[0].json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert messages[4] == {"role": "tool", "tool_call_id": "call_b", "content": CANCELLED_TOOL_CALL}
    assert calls == []  # the open call is not run
