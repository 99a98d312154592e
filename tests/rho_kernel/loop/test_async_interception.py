"""`rho_before_tool_call` and `rho_after_tool_call` implementations may be `async def`: the
loop awaits their answers after the synchronous ones (extensions in V8 answer this way)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rho_kernel import ToolResult, hookimpl, tool
from rho_kernel.cancel import CancelToken
from rho_kernel.loop.agent import CANCELLED
from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply
from rho_kernel.tools import Block, Rewrite


@tool(risk="read")
def echo(text: str) -> str:
    """Echo the text."""
    return f"echo: {text}"


class AsyncGuard:
    """Blocks `--force`, rewrites `shout` to upper case, after a real await."""

    @hookimpl
    async def rho_before_tool_call(self, arguments: dict[str, Any]) -> Any:
        await asyncio.sleep(0.01)
        text = str(arguments.get("text", ""))
        if "--force" in text:
            return Block("no --force here")
        if text.startswith("shout"):
            return Rewrite({"text": text.upper()})
        return None


async def _run(server: ScriptedServer, root: Path, *plugins: object, **kw: Any) -> Any:
    return await run_prompt(
        "go", endpoint=server.chat_url, root=root, tools=[echo], plugins=list(plugins), **kw
    )


async def test_an_async_hook_blocks_and_rewrites(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("echo", {"text": "push --force"}),
        tool_call_reply("echo", {"text": "shout it"}),
        tool_call_reply("echo", {"text": "calm"}),
        text_reply("done"),
    )
    result = await _run(scripted_server, tmp_path, AsyncGuard())
    calls = result.tool_calls
    assert (calls[0].outcome, calls[0].output) == ("blocked", "Tool call blocked: no --force here")
    assert calls[1].output == "echo: SHOUT IT"
    assert calls[2].output == "echo: calm"


class Pending:
    """An awaitable answer that records whether it was awaited or closed."""

    def __init__(self) -> None:
        self.state = "new"

    def __await__(self) -> Any:
        self.state = "awaited"
        yield from asyncio.sleep(0).__await__()
        return None

    def close(self) -> None:
        self.state = "closed"


class EarlyAsync:
    def __init__(self) -> None:
        self.answer = Pending()

    @hookimpl(tryfirst=True)
    def rho_before_tool_call(self) -> Pending:
        return self.answer


class SyncBlock:
    @hookimpl(trylast=True)
    def rho_before_tool_call(self) -> Block:
        return Block("sync says no")


async def test_a_synchronous_block_wins_and_the_pending_awaitable_is_closed(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("echo", {"text": "hi"}), text_reply("done"))
    early = EarlyAsync()
    result = await _run(scripted_server, tmp_path, early, SyncBlock())
    assert result.tool_calls[0].output == "Tool call blocked: sync says no"
    assert early.answer.state == "closed"


class Failing:
    @hookimpl
    async def rho_before_tool_call(self) -> None:
        raise RuntimeError("hook broke")

    @hookimpl
    async def rho_after_tool_call(self, result: ToolResult) -> ToolResult:
        return ToolResult(result.output + " (checked)", result.is_error)


async def test_a_failing_async_hook_is_reported_and_an_async_after_hook_replaces_the_result(
    scripted_server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted_server.add(tool_call_reply("echo", {"text": "hi"}), text_reply("done"))
    result = await _run(scripted_server, tmp_path, Failing())
    assert result.tool_calls[0].output == "echo: hi (checked)"
    assert "failed in rho_before_tool_call: hook broke" in capsys.readouterr().err


class Hanging:
    def __init__(self) -> None:
        self.entered = asyncio.Event()

    @hookimpl
    async def rho_before_tool_call(self) -> None:
        self.entered.set()
        await asyncio.sleep(3600)


async def test_an_abort_while_an_async_hook_hangs_ends_the_call_as_cancelled(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(tool_call_reply("echo", {"text": "hi"}), text_reply("never"))
    hanging = Hanging()
    cancel = CancelToken()
    task = asyncio.ensure_future(_run(scripted_server, tmp_path, hanging, cancel=cancel))
    await asyncio.wait_for(hanging.entered.wait(), 10)
    cancel.cancel()
    result = await asyncio.wait_for(task, 10)
    assert result.finish_reason == "cancelled"
    assert (result.tool_calls[0].outcome, result.tool_calls[0].output) == ("cancelled", CANCELLED)
