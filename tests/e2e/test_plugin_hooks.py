"""Third-party plugins in the real `rho` process: hook wrappers, tracing, safe tool defaults,
per-plugin state, and commands and getState keys beside an extension's.

Each plugin is installed the way a wheel would be: a `*.dist-info` with `entry_points.txt`
and its module on PYTHONPATH.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rho_process import (  # type: ignore[import-not-found]
    RhoProcess,
    plugin_env,
    start_scripted,
    stderr_lines,
)

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

NO_WRITES = """
from rho_kernel import hookimpl


@hookimpl(wrapper=True)
def rho_register_tools():
    contributions = yield
    return [[t for t in tools if t.name != "write_file"] for tools in contributions]
"""

UNDECLARED = """
from rho_kernel import Tool, ToolResult, hookimpl, tool


@tool
def launch() -> str:
    \"\"\"Does something; says nothing about its risk.\"\"\"
    return "launched"


class Bare(Tool):
    name = "bare"
    description = "A Tool subclass without a risk."

    async def execute(self, args, ctx):
        return ToolResult("bare ran")


@hookimpl
def rho_register_tools():
    return [launch, Bare()]
"""

COUNTER = """
from rho_kernel import ToolContext, hookimpl, tool


@tool(risk="read")
def count(ctx: ToolContext) -> str:
    \"\"\"Count calls.\"\"\"
    ctx.stash["n"] = ctx.stash.get("n", 0) + 1
    return f"count {ctx.stash['n']}"


@tool(risk="read")
def peek(ctx: ToolContext) -> str:
    \"\"\"Read the count.\"\"\"
    return f"peek {ctx.stash.get('n', 0)}"


@hookimpl
def rho_register_tools():
    return [count, peek]
"""

NEIGHBOUR = """
from rho_kernel import ToolContext, hookimpl, tool


@tool(risk="read")
def neighbour_peek(ctx: ToolContext) -> str:
    \"\"\"Read this plugin's count.\"\"\"
    return f"neighbour {ctx.stash.get('n', 0)}"


@hookimpl
def rho_register_tools():
    return [neighbour_peek]
"""

COMMANDS = """
from rho_kernel import Command, Risk, ToolError, hookimpl


class Deploy(Command):
    name = "deploy"
    description = "Deploy with acme"
    source = "acme"
    risk = Risk.WRITE

    async def run(self, args):
        if args == "nowhere":
            raise ToolError("acme cannot deploy nowhere")
        return f"acme deployed {args}"


@hookimpl
def rho_register_commands(runtime):
    return [Deploy()]


@hookimpl
def rho_state(runtime):
    return {"acme": {"deploys": 0}, "busy": "never"}
"""

SHIP = (
    'export default { name: "ship", commands: [{ name: "deploy", description: "Ship it", '
    "handler: (args: string) => `shipped ${args}` }] };\n"
)


def _site(tmp_path: Path, **plugins: str) -> dict[str, str]:
    site = tmp_path / "site"
    for entry, source in plugins.items():
        module = f"{entry}_rho_plugin"
        dist = site / f"{module}-0.1.dist-info"
        dist.mkdir(parents=True)
        name = module.replace("_", "-")
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        (dist / "entry_points.txt").write_text(f"[rho]\n{entry} = {module}\n")
        (site / f"{module}.py").write_text(source)
    return plugin_env(site, *plugins)


@pytest.fixture(scope="module")
def tools_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One site for the module's shared rho: the plugins adding tools of their own."""
    return _site(
        tmp_path_factory.mktemp("plugins"),
        undeclared=UNDECLARED,
        counter=COUNTER,
        neighbour=NEIGHBOUR,
    )


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def test_a_wrapper_of_a_registration_hook_decides_the_tools(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, tmp_path: Path
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral", env=_site(tmp_path, nowrites=NO_WRITES))
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert "write_file" not in tools
    assert tools["read_file"]["plugin"] == "rho-tools-fs"  # passed through: still its own
    plugins = {p["name"]: p for p in rho.call("listPlugins")["result"]["plugins"]}
    assert plugins["nowrites"]["hooks"] == ["rho_register_tools"]
    assert rho.finish() == 0
    assert [line for line in stderr_lines(rho.stderr_text()) if "warning" in line] == []


def test_trace_env_traces_the_calls_rho_makes(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (project / "notes.txt").write_text(f"token = {secret}\n")
    server.add(tool_call_reply("read_file", {"path": "notes.txt"}), text_reply("read"))
    rho = start_scripted(start_rho, server, "--ephemeral", env={"RHO_TRACE_PLUGINS": "1"})
    assert rho.call("prompt", {"message": "read it"})["result"]["reply"] == "read"
    assert rho.finish() == 0  # every stdout line was protocol: RhoProcess parsed them all
    lines = rho.stderr_text().splitlines()
    for hook in (
        "rho_register_config_sections",
        "rho_register_tools",
        "rho_register_rpc_methods",
        "rho_startup",
        "rho_register_observers",
        "rho_before_tool_call",
        "rho_approval_policy",
        "rho_after_tool_call",
        "rho_shutdown",
    ):
        assert f"rho: trace:   {hook} [hook]" in lines, hook
    assert "rho: trace:       tool_name: read_file" in lines
    assert "rho: trace:   finish rho_approval_policy --> auto [hook]" in lines
    assert secret not in "\n".join(lines)


def test_a_tool_that_declares_no_risk_asks_before_it_runs(  # type: ignore[no-untyped-def]
    shared_rho, tools_site: dict[str, str]
) -> None:
    shared = shared_rho("--ephemeral", env=tools_site)
    rho, server = shared.rho, shared.server
    server.add(
        tool_call_reply("launch", {}),
        tool_call_reply("bare", {}),
        text_reply("done"),
    )
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert (tools["launch"]["risk"], tools["bare"]["risk"]) == ("destructive", "destructive")
    prompt = rho.request("prompt", {"message": "go"})
    first = rho.notification("approval/request")["params"]
    assert (first["tool"], first["risk"]) == ("launch", "destructive")
    rho.answer_approval(first)
    second = rho.notification("approval/request")["params"]
    assert (second["tool"], second["risk"]) == ("bare", "destructive")
    rho.answer_approval(second, approved=False)
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    outputs = [(r["name"], r["output"]) for r in _results(rho)]
    assert outputs == [("launch", "launched"), ("bare", "Tool call denied by user.")]


def test_a_plugins_stash_lasts_for_the_process_and_is_its_own(  # type: ignore[no-untyped-def]
    shared_rho, tools_site: dict[str, str]
) -> None:
    # The shared rho: no other test calls `count`, so its stash starts empty here.
    shared = shared_rho("--ephemeral", env=tools_site)
    rho, server = shared.rho, shared.server
    server.add(tool_call_reply("count", {}), text_reply("one"))
    server.add(tool_call_reply("count", {}), tool_call_reply("peek", {}), text_reply("two"))
    server.add(
        tool_call_reply("count", {}), tool_call_reply("neighbour_peek", {}), text_reply("three")
    )
    assert rho.call("prompt", {"message": "1"})["result"]["reply"] == "one"
    assert rho.call("prompt", {"message": "2"})["result"]["reply"] == "two"
    assert "sessionId" in rho.call("newSession")["result"]
    assert rho.call("prompt", {"message": "3"})["result"]["reply"] == "three"
    assert [r["output"] for r in _results(rho)] == [
        "count 1",
        "count 2",
        "peek 2",
        "count 3",
        "neighbour 0",
    ]


def test_a_plugins_commands_and_state_keys_sit_beside_an_extensions(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, tmp_path: Path, home: Path
) -> None:
    extensions = home / ".rho" / "extensions"
    extensions.mkdir(parents=True)
    (extensions / "ship.ts").write_text(SHIP)
    rho = start_scripted(start_rho, server, "--ephemeral", env=_site(tmp_path, acme=COMMANDS))
    listed = rho.call("listCommands")["result"]["commands"]
    assert sorted((c["source"], c["name"], c["risk"], c.get("extension")) for c in listed) == [
        ("acme", "deploy", "write", None),
        ("extension:ship", "deploy", "read", "ship"),
    ]
    both = rho.call("executeCommand", {"name": "deploy"})["error"]
    assert both["code"] == -32602
    assert "offered by acme, extension:ship; say which with source" in both["message"]
    mine = rho.call("executeCommand", {"name": "deploy", "source": "acme", "args": "v2"})
    assert mine["result"] == {"output": "acme deployed v2"}
    shipped = rho.call("executeCommand", {"name": "deploy", "extension": "ship", "args": "v3"})
    assert shipped["result"] == {"output": "shipped v3"}
    failed = rho.call("executeCommand", {"name": "deploy", "source": "acme", "args": "nowhere"})
    assert failed["error"] == {"code": -32020, "message": "acme cannot deploy nowhere"}
    state = rho.call("getState")["result"]
    assert state["acme"] == {"deploys": 0} and state["busy"] is False
    assert rho.call("getState")["result"] == state
    assert rho.finish() == 0
    err = rho.stderr_text()
    clash = "getState key 'busy' of plugin 'acme' (acme-rho-plugin 0.1) skipped: getState has"
    assert err.count(clash) == 1
    assert "Traceback" not in err
