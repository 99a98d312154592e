"""The declared tools: what they tell rho before import equals what their implementations say,
and every use goes to the implementation."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.guards import StuckLoopDetector
from rho_kernel.plugins import PluginHost
from rho_kernel.security import SandboxRoot
from rho_kernel.testing import declared_differences
from rho_kernel.tools import (
    DeclaredTool,
    Risk,
    ToolContext,
    ToolDeclaration,
    ToolResult,
    declared_tools,
)
from rho_tools_fs import plugin
from rho_tools_fs.declared import DECLARATIONS, SCHEMAS


def registered() -> list[DeclaredTool]:
    host = PluginHost(autoload=False, report=lambda message: None)
    assert host.register(plugin, "rho-tools-fs")
    tools = [t for _, t in host.collect("rho_register_tools", config=RhoConfig(), root=Path("."))]
    assert all(isinstance(t, DeclaredTool) for t in tools)
    return tools  # type: ignore[return-value]


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda d: d.name)
def test_declared_tool_says_what_its_implementation_says(declaration: ToolDeclaration) -> None:
    differences = declared_differences(DeclaredTool(declaration, SCHEMAS))
    assert differences == [], "after changing a tool: python -m rho_tools_fs.declared"


def test_the_plugin_registers_every_tool_once_in_order() -> None:
    names = [tool.name for tool in registered()]
    assert names == [d.name for d in DECLARATIONS]
    assert len(set(names)) == len(names)
    assert [t.name for t in declared_tools(DECLARATIONS, SCHEMAS)] == names


async def test_calls_outlines_and_risks_go_to_the_implementation(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    tools = {tool.name: tool for tool in registered()}
    read = tools["read_file"]
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    result = await read.execute({"path": "a.txt", "hashline": False}, ctx)
    expected = await read.target.execute({"path": "a.txt", "hashline": False}, ctx)
    assert not result.is_error and result.output == expected.output and "two" in result.output
    bad = await read.execute({"path": "a.txt", "limit": "x"}, ctx)
    assert bad.is_error and "invalid arguments" in bad.output
    arguments = {"path": "a.txt"}
    assert read.outline(arguments, result) == read.target.outline(arguments, result)
    assert read.outline(arguments, result) is not None
    assert read.continuation(arguments, result, 1) == read.target.continuation(arguments, result, 1)
    assert tools["run_command"].call_risk({"command": "ls"}) == Risk.DESTRUCTIVE


async def test_errors_of_the_implementation_reach_the_caller(tmp_path: Path) -> None:
    tool = {t.name: t for t in registered()}["write_file"]
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    result = await tool.execute({"path": "../outside.txt", "content": "x"}, ctx)
    assert isinstance(result, ToolResult) and result.is_error
    assert not (tmp_path.parent / "outside.txt").exists()


def test_only_run_command_declares_fresh_processes_and_keeps_its_stuck_advice() -> None:
    tools = {declared.name: declared for declared in declared_tools(DECLARATIONS, SCHEMAS)}
    assert tools["run_command"].fresh_process_per_call
    assert not any(t.fresh_process_per_call for name, t in tools.items() if name != "run_command")
    detector = StuckLoopDetector(2)
    same = ToolResult("out")
    detector.check("run_command", "{}", same, tools["run_command"])
    nudge = detector.check("run_command", "{}", same, tools["run_command"]).output
    assert nudge.endswith(
        " Each run_command starts a fresh process in the project root: use the `cwd` "
        "parameter or full paths instead of `cd`, and edit files before re-running."
    )
