"""MCP servers through the real `rho` process: SDK-written servers over stdio and
Streamable HTTP, their tools in the loop, their lifecycle and failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_servers import ECHO, mcp_servers, toml_server, user_servers, write_spec  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _prompt(rho: RhoProcess, message: str = "go") -> dict[str, Any]:
    rho.request("prompt", {"message": message})
    return rho.wait_for(lambda m: m.get("method") in ("agent/end", "agent/error"))


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def test_a_user_servers_tool_runs_in_the_loop_after_approval(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    spec = write_spec(tmp_path / "specs", "docs", tools=[ECHO], stderr="docs server up")
    user_servers(home, toml_server("docs", spec))
    server.add(tool_call_reply("mcp__docs__echo", {"text": "hello"}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert tools["mcp__docs__echo"]["risk"] == "write"
    assert tools["mcp__docs__echo"]["plugin"] == "rho-mcp"
    rho.request("prompt", {"message": "go"})
    approval = rho.notification("approval/request")
    rho.answer_approval(approval["params"], True)
    rho.wait_for(lambda m: m.get("method") == "agent/end")
    assert _results(rho)[0]["output"] == "hello"
    listed = mcp_servers(rho)["docs"]
    assert listed["state"] == "ready" and listed["transport"] == "stdio"
    assert listed["tools"] == ["mcp__docs__echo"] and listed["origin"] == "user"
    assert listed["confined"] is False
    log = Path(listed["logPath"])
    assert log.parent == home / ".rho" / "logs"
    assert rho.finish() == 0
    assert "docs server up" in log.read_text()
    assert "Traceback" not in rho.stderr_text()
