"""Fitting inside the agent loop: fitted requests, bounded results with their outline and
full text, calibration from usage, and the clear error when nothing fits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel import ToolResult, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.context import ContextFitter, TokenEstimator
from rho_kernel.loop.agent import LoopParams, run_loop
from rho_kernel.loop.result import AgentError
from rho_kernel.plugins import PluginHost
from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.session import Session
from rho_kernel.testing import (
    RecordingObserver,
    ScriptedServer,
    in_memory_session,
    text_reply,
    tool_call_reply,
)
from rho_kernel.tools.registry import ToolRegistry

NO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def _lines(count: int) -> str:
    return "\n".join(f"row {i:05} " + "." * 40 for i in range(count))


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    return f"dump {arguments['n']}: {result.output.count(chr(10)) + 1} rows"


def _continue(arguments: dict[str, Any], result: ToolResult, kept: int) -> str:
    return f"call dump with start={kept}"


@tool(risk="read", outline=_outline, continuation=_continue)
def dump(n: int) -> str:
    """Dump n rows."""
    return _lines(n)


@tool(risk="read", cut_keeps_tail=True, continuation=_continue)
def log(n: int) -> str:
    """Print n rows, as a command would."""
    return _lines(n)


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


async def _run(
    server: ScriptedServer,
    root: Path,
    message: str,
    *,
    session: Session,
    token_budget: int = 4096,
    estimator: TokenEstimator | None = None,
    observers: list[Any] | None = None,
) -> Any:
    host = PluginHost(autoload=False)
    host.load_defaults()
    registry = ToolRegistry()
    registry.register(dump, "test")
    registry.register(log, "test")
    config = RhoConfig.model_validate(
        {"agent": {"token_budget": token_budget, "completion_reserve": 1024}}
    )
    service = ChatCompletionsService(server.chat_url, None, "scripted")
    params = LoopParams(
        service=service,
        model="test-model",
        tools=registry,
        plugins=host,
        config=config,
        root=SandboxRoot(root),
        observers=observers or [],
        estimator=estimator,
        fitter=ContextFitter(),
    )
    try:
        return await run_loop(session, message, params)
    finally:
        await service.aclose()


async def test_a_large_result_is_cut_on_a_line_with_a_footer_and_kept_whole(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(tool_call_reply("dump", {"n": 2000}, usage=NO_USAGE), text_reply("done"))
    session = in_memory_session(tmp_path)
    observer = RecordingObserver()
    await _run(server, tmp_path, "dump it", session=session, observers=[observer])
    stored = session.path_messages()[-2]
    assert stored.role == "tool"
    full = _lines(2000)
    # share: half of (4096 − 1024) tokens at 2.5 bytes a token = 3840 bytes
    body, footer = stored.text.rsplit("\n\n", 1)
    assert full.startswith(body + "\n") and len(body.encode()) <= 3840
    kept = body.count("\n") + 1
    assert footer == (
        f"[output cut to fit the context window: {kept} of 2000 lines shown; "
        f"{len(full) - len(body)} of {len(full)} bytes left out. call dump with start={kept}]"
    )
    assert stored.details == {"FullOutput": {"original_size": len(full), "content": full}}
    assert stored.outline == "dump 2000: 2000 rows"  # made from the whole result
    sent = server.requests[1].json["messages"][-1]
    assert sent["content"] == stored.text and "details" not in sent and "outline" not in sent
    shown = next(args for name, args in observer.events if name == "on_tool_result")
    assert shown[1].output == stored.text


async def test_requests_stay_within_the_budget_and_keep_the_first_request(
    server: ScriptedServer, tmp_path: Path
) -> None:
    rounds = 40
    server.add(*[tool_call_reply("dump", {"n": 40}, usage=NO_USAGE) for _ in range(rounds)])
    server.add(text_reply("done", usage=NO_USAGE))
    observer = RecordingObserver()
    await _run(
        server,
        tmp_path,
        "THE ORIGINAL TASK",
        session=in_memory_session(tmp_path),
        observers=[observer],
    )
    limit = (4096 - 1024) * 2.5
    for request in server.requests:
        messages = request.json["messages"]
        assert messages[1] == {"role": "user", "content": "THE ORIGINAL TASK"}
        size = sum(len(m["content"]) + 20 for m in messages)
        assert size <= limit
    last = server.requests[-1].json["messages"]
    assert any(m["content"].startswith("[outline] dump 40: 40 rows") for m in last)
    fitted = [args[2].fitted for name, args in observer.events if name == "on_usage"]
    assert fitted[-1].budget_tokens == 3072 and fitted[-1].outlined > 0
    assert all(f.estimated_tokens <= 3072 for f in fitted)


async def test_usage_calibrates_the_estimator(server: ScriptedServer, tmp_path: Path) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    server.add(text_reply("hi", usage=usage))
    estimator = TokenEstimator()
    await _run(server, tmp_path, "hello", session=in_memory_session(tmp_path), estimator=estimator)
    body = server.requests[0].json
    # hundreds of bytes reported as 10 tokens: the ratio moves up (by α = 0.3, capped at 6)
    assert estimator.ratio("test-model") == pytest.approx(0.3 * 6.0 + 0.7 * 2.5)
    assert estimator.ratio("other-model") == 2.5
    assert body["max_tokens"] == 1024


async def test_a_prompt_that_cannot_fit_fails_with_a_clear_error_and_sends_nothing(
    server: ScriptedServer, tmp_path: Path
) -> None:
    session = in_memory_session(tmp_path)
    observer = RecordingObserver()
    with pytest.raises(AgentError) as caught:
        await _run(server, tmp_path, "z" * 20_000, session=session, observers=[observer])
    assert "does not fit the context window" in caught.value.message
    assert "prompt budget is 3072 tokens" in caught.value.message
    assert caught.value.category == "agent"
    assert server.requests == []
    errors = [args for name, args in observer.events if name == "on_agent_error"]
    assert errors and "does not fit" in errors[0][0]
    assert session.read_custom("rho.turn_error.v1")["category"] == "agent"


async def test_a_tool_that_keeps_the_tail_gets_its_first_and_last_lines_and_the_client_all(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.add(
        tool_call_reply("log", {"n": 2000}, usage=NO_USAGE),
        tool_call_reply("log", {"n": 3}, usage=NO_USAGE),
        text_reply("done"),
    )
    session = in_memory_session(tmp_path)
    observer = RecordingObserver()
    await _run(server, tmp_path, "log it", session=session, observers=[observer])
    cut, whole = [m for m in session.path_messages() if m.role == "tool"]
    full = _lines(2000)
    lines = cut.text.split("\n")
    head = lines.index(next(line for line in lines if line.startswith("[… ")))
    tail = len(lines) - head - 3  # after the marker: the tail, a blank line, the footer
    assert head > 10 and tail > 10
    assert lines[:head] == full.split("\n")[:head]
    assert lines[head + 1 : head + 1 + tail] == full.split("\n")[-tail:]
    assert lines[head] == f"[… {2000 - head - tail} lines left out …]"
    assert lines[-1].startswith(
        f"[output cut to fit the context window: the first {head} and last {tail} of 2000 "
        f"lines shown; lines {head + 1}-{2000 - tail} ("
    )
    assert lines[-1].endswith(f"left out. call dump with start={head}]")
    assert len(cut.text.encode()) <= 3840  # the share, as for any tool
    assert cut.details == {"FullOutput": {"original_size": len(full), "content": full}}
    assert whole.text == _lines(3) and whole.details is None
    results = [
        (args[1].output, keywords.get("full_output"))
        for (name, args), keywords in zip(observer.events, observer.keywords, strict=True)
        if name == "on_tool_result"
    ]
    assert results == [(cut.text, full), (_lines(3), None)]
