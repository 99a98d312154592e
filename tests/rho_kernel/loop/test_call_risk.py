"""Per-call risk through the real loop: `Tool.call_risk` and `@tool(call_risk=)` decide what
the approval policy and the approval request see for each call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel import Risk, Tool, ToolContext, ToolResult, hookimpl, tool
from rho_kernel.testing import ScriptedServer, approve_all, run_prompt, text_reply, tool_call_reply


class Notes(Tool):
    """Reads are read-risk, anything else write-risk; the declared risk is the highest."""

    name = "notes"
    description = "Keep notes."
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {"action": {"type": "string"}},
        "required": ["action"],
    }
    risk = Risk.WRITE

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        return Risk.READ if arguments.get("action") == "read" else Risk.WRITE

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"did {args['action']}")


async def test_a_read_call_runs_unasked_and_a_write_call_of_the_same_tool_asks(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("notes", {"action": "read"}),
        tool_call_reply("notes", {"action": "write"}),
        text_reply("done"),
    )
    gate = approve_all()
    result = await run_prompt(
        "notes", endpoint=scripted_server.chat_url, root=tmp_path, tools=[Notes()], gate=gate
    )
    assert [(r.tool, r.risk, r.arguments) for r in gate.requests] == [
        ("notes", Risk.WRITE, '{"action": "write"}')
    ]
    assert [c.output for c in result.tool_calls] == ["did read", "did write"]


class Policy:
    """Records the risk each call's policy question carries."""

    def __init__(self) -> None:
        self.risks: list[Risk] = []

    @hookimpl
    def rho_approval_policy(self, risk: Risk) -> None:
        self.risks.append(risk)


async def test_the_approval_policy_hook_gets_the_risk_of_the_call(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("notes", {"action": "read"}),
        tool_call_reply("notes", {"action": "erase"}),
        text_reply("done"),
    )
    policy = Policy()
    await run_prompt(
        "notes",
        endpoint=scripted_server.chat_url,
        root=tmp_path,
        tools=[Notes()],
        plugins=[policy],
        gate=approve_all(),
    )
    assert policy.risks == [Risk.READ, Risk.WRITE]


def _lookup_risk(arguments: dict[str, Any]) -> str:
    return "read" if arguments.get("key") else "write"


@tool(risk="write", call_risk=_lookup_risk)
def lookup(key: str = "") -> str:
    """Look a key up, or write when no key is given."""
    return f"looked up {key!r}"


async def test_the_decorator_takes_a_call_risk_function(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.add(
        tool_call_reply("lookup", {"key": "a"}),
        tool_call_reply("lookup", {}),
        text_reply("done"),
    )
    gate = approve_all()
    await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[lookup], gate=gate
    )
    assert [(r.arguments, r.risk) for r in gate.requests] == [("{}", Risk.WRITE)]
    assert lookup.call_risk({"key": "x"}) is Risk.READ


class Broken(Notes):
    name = "broken"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]


@pytest.mark.parametrize("answer", [RuntimeError("boom"), "read", None])
async def test_a_failing_or_odd_call_risk_counts_as_destructive_and_is_reported(
    scripted_server: ScriptedServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    answer: Any,
) -> None:
    scripted_server.add(tool_call_reply("broken", {"action": "read"}), text_reply("done"))
    gate = approve_all()
    await run_prompt(
        "go", endpoint=scripted_server.chat_url, root=tmp_path, tools=[Broken(answer)], gate=gate
    )
    assert [r.risk for r in gate.requests] == [Risk.DESTRUCTIVE]
    err = capsys.readouterr().err
    assert "broken.call_risk" in err and "counts as destructive" in err
