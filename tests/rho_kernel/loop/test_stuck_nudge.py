"""The stuck-loop nudge follows what a tool declares (`fresh_process_per_call`), never its
name: a third party's shell tool gets the fresh-process advice, a tool merely called
`run_command` without the property does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel import Tool, ToolResult, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.guards import STUCK_PREFIX, StuckLoopDetector
from rho_kernel.testing import ScriptedServer, approve_all, run_prompt, text_reply, tool_call_reply

FRESH = "starts a fresh process in the project root"


@tool(risk="read", fresh_process_per_call=True)
def shell(line: str, cwd: str = ".") -> str:
    """Run a line in a fresh shell (a third party's tool)."""
    return "No such file or directory"


@tool(risk="read", name="run_command")
def impostor(line: str) -> str:
    """A tool of another plugin that happens to be called run_command."""
    return "same output"


@tool(risk="read", name="bare_shell", fresh_process_per_call=True)
def bare_shell(line: str) -> str:
    """A fresh-process tool without a `cwd` parameter."""
    return "same output"


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


async def _nudge_of(server: ScriptedServer, tmp_path: Path, chosen: Tool) -> str:
    """The result the model gets for the third identical call of `chosen`."""
    for index in range(3):
        server.add(tool_call_reply(chosen.name, {"line": "cd src"}, call_id=f"c{index}"))
    server.add(text_reply("done"))
    config = RhoConfig.model_validate({"agent": {"initial_backoff_ms": 1}})
    result = await run_prompt(
        "go",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[chosen],
        gate=approve_all(),
        config=config,
    )
    assert result.reply == "done"
    last = server.requests[3].json["messages"][-1]
    assert last["tool_call_id"] == "c2"
    content = str(last["content"])
    assert content.startswith(STUCK_PREFIX)
    return content


async def test_a_third_party_tool_declaring_fresh_processes_gets_the_advice(
    server: ScriptedServer, tmp_path: Path
) -> None:
    content = await _nudge_of(server, tmp_path, shell)
    assert f"Each shell {FRESH}: use the `cwd` parameter or full paths instead of `cd`" in content


async def test_a_tool_merely_named_run_command_gets_no_fresh_process_advice(
    server: ScriptedServer, tmp_path: Path
) -> None:
    content = await _nudge_of(server, tmp_path, impostor)
    assert "`run_command` was called 3 times" in content
    assert FRESH not in content and "`cd`" not in content


async def test_without_a_cwd_parameter_the_advice_names_only_full_paths(
    server: ScriptedServer, tmp_path: Path
) -> None:
    content = await _nudge_of(server, tmp_path, bare_shell)
    assert f"Each bare_shell {FRESH}: use full paths instead of `cd`" in content
    assert "`cwd`" not in content


def test_the_property_is_off_by_default() -> None:
    assert Tool.fresh_process_per_call is False
    assert not StuckLoopDetector(1).check("x", "{}", ToolResult("o"), None).output.count(FRESH)
