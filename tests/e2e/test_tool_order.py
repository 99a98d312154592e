"""The tool definitions every request begins with keep one order through the real `rho`:
an MCP server started again registers its tools again, and the requests after it still
begin with the same definitions (a provider's prompt cache reuses them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp_servers import ECHO, toml_server, user_servers, write_spec  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply


def _tools(server: ScriptedServer) -> list[Any]:
    return [r.json["tools"] for r in server.requests if r.method == "POST"]


def test_restarting_an_mcp_server_leaves_the_tool_definitions_as_they_were(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    specs = tmp_path / "specs"
    pid = {"name": "pid", "behavior": "pid"}
    user_servers(
        home,
        toml_server("alpha", write_spec(specs, "alpha", tools=[ECHO, pid])),
        toml_server("beta", write_spec(specs, "beta", tools=[ECHO])),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    server.add(text_reply("one"))
    assert rho.call("prompt", {"message": "first"})["result"]["reply"] == "one"
    (before,) = _tools(server)
    names = [tool["function"]["name"] for tool in before]
    assert {"mcp__alpha__echo", "mcp__alpha__pid", "mcp__beta__echo"} <= set(names)
    # the server whose tools come first starts again: registered anew, they would go last
    first = next(name.split("__")[1] for name in names if name.startswith("mcp__"))
    restarted = rho.call("restartMcpServer", {"name": first})["result"]["server"]
    assert restarted["state"] == "ready" and restarted["starts"] == 2
    server.add(text_reply("two"))
    assert rho.call("prompt", {"message": "second"})["result"]["reply"] == "two"
    assert _tools(server)[1] == before
    assert rho.finish() == 0
