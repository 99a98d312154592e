"""A call that cannot run never reaches the user: through the real loop, the arguments are
validated and the tool's own `check` runs before an approval is asked, and its problem is
the call's result (see `rho_kernel.loop.precheck`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_kernel import RhoConfig, Risk, Tool, ToolContext, ToolResult, tool
from rho_kernel.testing import (
    RecordingObserver,
    ScriptedServer,
    approve_all,
    run_prompt,
    text_reply,
    tool_call_reply,
)
from rho_kernel.tools import ToolError


@tool(risk="write")
def sleep_for(seconds: int, label: str = "") -> str:
    """Pretend to wait."""
    return f"waited {seconds}"


async def test_arguments_that_do_not_fit_the_signature_are_answered_without_asking(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("sleep_for", {"seconds": "x"}),
        tool_call_reply("sleep_for", {"seconds": 1, "colour": "red"}),
        tool_call_reply("sleep_for", {"seconds": 2}),
        text_reply("done"),
    )
    gate, observer = approve_all(), RecordingObserver()
    result = await run_prompt(
        "wait",
        endpoint=scripted_server.chat_url,
        root=tmp_path,
        tools=[sleep_for],
        gate=gate,
        observers=[observer],
    )
    assert [r.arguments for r in gate.requests] == ['{"seconds": 2}']  # only the valid call
    first, second, third = result.tool_calls
    assert (first.outcome, second.outcome, third.outcome) == ("error", "error", "success")
    assert first.output is not None and first.output.startswith("sleep_for: invalid arguments")
    assert "seconds" in first.output
    assert second.output is not None and "colour" in second.output
    assert observer.names().count("on_approval_requested") == 1
    assert "on_tool_denied" not in observer.names()


class Files(Tool):
    """A tool whose `check` needs its file to exist, answering in each way a check can."""

    name = "touch_up"
    description = "Touch a file up."
    parameters = {"type": "object", "properties": {"path": {"type": "string"}}}  # noqa: RUF012
    risk = Risk.WRITE

    def __init__(self) -> None:
        self.checked: list[dict[str, Any]] = []

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        self.checked.append(arguments)
        path = arguments.get("path")
        if path == "raise-tool-error":
            raise ToolError("touch_up: said by raising")
        if path == "break":
            raise RuntimeError("the check itself broke")
        if path == "odd":
            return 42  # type: ignore[return-value]
        if not isinstance(path, str) or not (ctx.root.path / path).is_file():
            return f"touch_up: '{path}' does not exist"
        return None

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"touched {args.get('path')}")


async def test_a_tools_check_answers_the_call_and_nobody_is_asked(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    (tmp_path / "here.txt").write_text("x")
    scripted_server.add(
        tool_call_reply("touch_up", {"path": "missing.txt"}),
        tool_call_reply("touch_up", {"path": "raise-tool-error"}),
        tool_call_reply("touch_up", {"path": "here.txt"}),
        text_reply("done"),
    )
    gate, files = approve_all(), Files()
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[files], gate=gate
    )
    assert [r.arguments for r in gate.requests] == ['{"path": "here.txt"}']
    assert [(c.outcome, c.output) for c in result.tool_calls] == [
        ("error", "touch_up: 'missing.txt' does not exist"),
        ("error", "touch_up: said by raising"),
        ("success", "touched here.txt"),
    ]


async def test_a_check_that_breaks_or_answers_oddly_is_reported_and_the_call_is_asked(
    scripted_server: ScriptedServer, tmp_path: Path, capsys: Any
) -> None:
    scripted_server.add(
        tool_call_reply("touch_up", {"path": "break"}),
        tool_call_reply("touch_up", {"path": "odd"}),
        text_reply("done"),
    )
    gate = approve_all()
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[Files()], gate=gate
    )
    assert [r.arguments for r in gate.requests] == ['{"path": "break"}', '{"path": "odd"}']
    assert [c.outcome for c in result.tool_calls] == ["success", "success"]
    err = capsys.readouterr().err
    assert "touch_up.check failed: RuntimeError: the check itself broke" in err
    assert "touch_up.check answered int" in err


async def test_a_call_denied_or_run_unasked_is_not_checked_first(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    """The check only stands before a question: a denial is said as a denial, and a call
    that runs unasked is checked by its tool when it runs."""
    scripted_server.add(
        tool_call_reply("touch_up", {"path": "missing.txt"}),
        text_reply("done"),
        tool_call_reply("touch_up", {"path": "missing.txt"}),
        text_reply("done"),
    )
    files = Files()
    denied = RhoConfig.model_validate({"approval": {"per_tool": {"touch_up": "deny"}}})
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[files], config=denied
    )
    assert [c.outcome for c in result.tool_calls] == ["denied"]
    auto = RhoConfig.model_validate({"approval": {"per_tool": {"touch_up": "auto"}}})
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[files], config=auto
    )
    assert [(c.outcome, c.output) for c in result.tool_calls] == [
        ("success", "touched missing.txt")
    ]
    assert files.checked == []


def _positive(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
    return None if arguments["count"] > 0 else "count_up: count must be positive"


async def _named(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
    return None if arguments["name"].strip() else "greet: the name is blank"


@tool(risk="write", check=_positive)
def count_up(count: int) -> str:
    """Count up."""
    return f"counted to {count}"


@tool(risk="write", check=_named)
async def greet(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


async def test_the_decorator_takes_a_sync_or_async_check_given_validated_arguments(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("count_up", {"count": "0"}),  # validated to the int 0 first
        tool_call_reply("greet", {"name": "  "}),
        tool_call_reply("count_up", {"count": 3}),
        text_reply("done"),
    )
    gate = approve_all()
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[count_up, greet], gate=gate
    )
    assert [r.tool for r in gate.requests] == ["count_up"]
    assert [c.output for c in result.tool_calls] == [
        "count_up: count must be positive",
        "greet: the name is blank",
        "counted to 3",
    ]


class Leaky(Tool):
    """A check whose message echoes a secret from the arguments."""

    name = "leaky"
    description = "Leak."
    parameters = {"type": "object", "properties": {"token": {"type": "string"}}}  # noqa: RUF012
    risk = Risk.WRITE

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        return f"leaky: the token {arguments.get('token')} is refused " + "x" * 100_000

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("ran")


async def test_a_checks_message_is_redacted_and_bounded_like_any_result(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    secret = "sk-ant-api03-" + "a1B2c3D4" * 8
    scripted_server.add(tool_call_reply("leaky", {"token": secret}), text_reply("done"))
    result = await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[Leaky()], gate=approve_all()
    )
    [call] = result.tool_calls
    assert call.outcome == "error" and call.output is not None
    assert secret not in call.output and "leaky: the token" in call.output
    assert len(call.output) < 70_000
    told = [m for m in scripted_server.requests[-1].json["messages"] if m["role"] == "tool"]
    assert "[REDACTED]" in told[0]["content"] and secret not in told[0]["content"]
