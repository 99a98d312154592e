"""A hostile MCP server's 20 MB error texts, through the real `rho`: every place an error
is kept — the tool result the model gets, the session file, the `tool/result`
notification, a command's error, a server's state and stderr — holds a bounded part of it
and says how much was left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_servers import raw_server, user_servers, write_spec  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: The size of each hostile text: 20 MB.
HUGE = 20_000_000
#: A tool's input schema.
OBJECT = {"type": "object"}
#: The most any one kept error text may take.
BOUND = 70_000


def _server(name: str, spec: Path) -> str:
    raw = raw_server(spec)
    return (
        f"[mcp_servers.{name}]\ncommand = {json.dumps(raw['command'])}\n"
        f"args = {json.dumps(raw['args'])}\n"
    )


def _called(rho: RhoProcess, server: ScriptedServer, tool: str, args: Any) -> dict[str, Any]:
    server.add(tool_call_reply(tool, args), text_reply("done"))
    rho.request("prompt", {"message": "go"})
    rho.wait_for(lambda m: m.get("method") in ("agent/end", "agent/error"))
    [*_, result] = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    return dict(result)


def test_a_servers_20_mb_errors_are_bounded_wherever_rho_keeps_them(
    start_rho: Any, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    specs = tmp_path / "specs"
    angry = write_spec(
        specs,
        "angry",
        tools=[{"name": "echo", "inputSchema": OBJECT}],
        resources=[{"uri": "file:///a.md", "name": "a", "text": "a"}],
        prompts=[{"name": "review"}],
        errors={"tools/call": HUGE, "resources/read": HUGE, "prompts/get": HUGE},
    )
    sulky = write_spec(
        specs,
        "sulky",
        tools=[{"name": "fails", "inputSchema": OBJECT, "behavior": "error_result", "size": HUGE}],
    )
    broken = write_spec(specs, "broken", tools=[], errors={"initialize": HUGE})
    user_servers(
        home, _server("angry", angry) + _server("sulky", sulky) + _server("broken", broken)
    )
    rho = start_scripted(start_rho, server, "--allow", "mcp__*")
    refused = _called(rho, server, "mcp__angry__echo", {"text": "hi"})
    read = _called(rho, server, "read_mcp_resource", {"server": "angry", "uri": "file:///a.md"})
    failed = _called(rho, server, "mcp__sulky__fails", {})
    for result in (refused, read, failed):
        assert result["is_error"] and len(result["output"].encode()) < BOUND
    assert refused["output"].startswith("MCP server 'angry' refused the call of its tool 'echo': ")
    assert read["output"].startswith("MCP server 'angry' refused the read of file:///a.md: ")
    for result in (refused, read):
        assert "bytes of the server's error left out" in result["output"]
        assert "DDDD" not in result["output"]  # its data is not quoted
    assert "bytes of the server's result left out" in failed["output"]
    command = rho.call("executeCommand", {"name": "mcp__angry__review", "args": ""})["error"]
    assert len(command["message"].encode()) < BOUND
    assert "bytes of the server's error left out" in command["message"]
    listed = {s["name"]: s for s in rho.call("listMcpServers")["result"]["servers"]}
    error = listed["broken"]["error"]
    assert listed["broken"]["state"] == "failed" and len(error) < 2000
    assert error.startswith("the server answered with an error: MMM")
    assert "bytes of the server's error left out" in error
    assert rho.finish() == 0
    assert len(rho.stderr_text().encode()) < 20_000
    [session] = (home / ".rho" / "sessions").glob("*/*.jsonl")
    assert session.stat().st_size < 1_000_000
    assert "M" * BOUND not in session.read_text()
