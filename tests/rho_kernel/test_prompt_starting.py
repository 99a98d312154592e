"""`rho_prompt_starting`: a plugin changes the tools as a prompt starts (never during a
turn) and may refuse the prompt before anything is sent or stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel import PromptContext, Runtime, hookimpl, tool
from rho_kernel.loop.result import AgentError
from rho_kernel.runtime import RuntimeOptions
from rho_kernel.testing import ScriptedServer, text_reply


@tool(description="Say hello.", risk="read")
def hello() -> str:
    return "hello"


class _Gatekeeper:
    """Refuses while `reason` is set; registers `hello` once `add_tool` is set."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.add_tool = False
        self.busy_seen: list[bool] = []

    @hookimpl
    def rho_prompt_starting(self, runtime: Runtime) -> str | None:
        self.busy_seen.append(runtime.busy)
        if self.add_tool and "hello" not in runtime.tools:
            runtime.tools.register(hello, "gatekeeper")
        return self.reason


class _Broken:
    @hookimpl
    def rho_prompt_starting(self, runtime: Runtime) -> str | None:
        raise RuntimeError("the gate fell off")


def _runtime(tmp_path: Path, server: ScriptedServer, *plugins: tuple[str, object]) -> Runtime:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    options = RuntimeOptions(
        cwd=project,
        home=tmp_path,
        ephemeral=True,
        endpoint=server.chat_url,
        model="scripted",
        plugin_objects=plugins,
        entry_points=False,
    )
    return Runtime.build(options)


async def test_a_refusal_fails_the_prompt_before_anything_is_sent_or_stored(
    tmp_path: Path,
) -> None:
    gate = _Gatekeeper()
    gate.reason = "the required server 'db' is not running"
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("gatekeeper", gate))
        with pytest.raises(AgentError, match="required server 'db'"):
            await runtime.prompt("hi")
        assert server.requests == []
        assert [m.role for m in runtime.session.path_messages()] == ["system"]
        gate.reason = None
        server.add(text_reply("hello there"))
        assert (await runtime.prompt("hi")).reply == "hello there"
    assert gate.busy_seen == [True, True]


async def test_tools_registered_as_a_prompt_starts_are_in_its_first_request(
    tmp_path: Path,
) -> None:
    gate = _Gatekeeper()
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("gatekeeper", gate))
        server.add(text_reply("one"), text_reply("two"))
        await runtime.prompt("first")
        gate.add_tool = True
        await runtime.prompt("second")
        names = [
            [t["function"]["name"] for t in request.json.get("tools", [])]
            for request in server.requests
        ]
    assert "hello" not in names[0] and "hello" in names[1]


async def test_a_plugin_that_raises_is_reported_and_refuses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("broken", _Broken()))
        server.add(text_reply("fine"))
        assert (await runtime.prompt("hi")).reply == "fine"
    assert "the gate fell off" in capsys.readouterr().err


class _Waiter:
    """Answers asynchronously: what it awaited, then its reason."""

    def __init__(self, reason: str | None) -> None:
        self.reason = reason
        self.awaited = False

    @hookimpl
    async def rho_prompt_starting(self, runtime: Runtime) -> str | None:
        self.awaited = True
        return self.reason


async def test_an_async_answer_is_awaited_and_may_refuse(tmp_path: Path) -> None:
    first, second = _Waiter(None), _Waiter("the server is still down")
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("first", first), ("second", second))
        with pytest.raises(AgentError, match="still down"):
            await runtime.prompt("hi")
        second.reason = None
        server.add(text_reply("up"))
        assert (await runtime.prompt("hi")).reply == "up"
    assert first.awaited and second.awaited


class _Context:
    """Sees each prompt's message and adds context to it."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    @hookimpl
    async def rho_prompt_starting(self, message: str) -> PromptContext:
        self.messages.append(message)
        return PromptContext(f"the branch is main (for {message!r})")


async def test_a_plugin_sees_the_message_and_its_context_follows_it(tmp_path: Path) -> None:
    plugin = _Context()
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("context", plugin))
        server.add(text_reply("ok"))
        await runtime.prompt("deploy it")
        sent = server.requests[0].json["messages"]
    assert plugin.messages == ["deploy it"]
    assert sent[-2] == {"role": "user", "content": "deploy it"}
    assert sent[-1]["role"] == "user"
    assert sent[-1]["content"].startswith("Context added by context to the message above:")
    assert "the branch is main (for 'deploy it')" in sent[-1]["content"]


class _Continues:
    """Continues a turn as it would end, `times` times."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.seen: list[tuple[str, int]] = []

    @hookimpl
    async def rho_turn_ending(self, reply: str, continued: int) -> str | None:
        self.seen.append((reply, continued))
        return "the tests still fail: go on" if continued < self.times else None


async def test_a_plugin_continues_a_turn_as_it_would_end(tmp_path: Path) -> None:
    plugin = _Continues(times=2)
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server, ("continues", plugin))
        server.add(text_reply("done"), text_reply("fixed"), text_reply("really done"))
        result = await runtime.prompt("fix the tests")
        requests = [r.json["messages"] for r in server.requests]
    assert result.reply == "really done" and result.iterations == 3
    assert plugin.seen == [("done", 0), ("fixed", 1), ("really done", 2)]
    assert requests[1][-1] == {"role": "user", "content": "the tests still fail: go on"}


def test_a_plugins_notification_reaches_the_front_end_or_is_dropped(tmp_path: Path) -> None:
    with ScriptedServer() as server:
        runtime = _runtime(tmp_path, server)
        runtime.notify("hook/run", {"event": "Stop"})  # no front end: dropped
        sent: list[tuple[str, dict[str, object]]] = []
        runtime.notifier = lambda method, params: sent.append((method, params))
        runtime.notify("hook/run", {"event": "Stop"})

        def broken(method: str, params: dict[str, object]) -> None:
            raise OSError("the pipe is closed")

        runtime.notifier = broken
        runtime.notify("hook/run", {})  # reported on stderr, never raised
    assert sent == [("hook/run", {"event": "Stop"})]
