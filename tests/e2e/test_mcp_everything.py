"""The published reference server, `@modelcontextprotocol/server-everything` (from the npm
registry, run with Node), through the real `rho`: annotations, images, structured content,
resources, prompts, and a long-running tool's progress."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_servers import (  # type: ignore[import-not-found]
    everything_server,
    mcp_servers,
    missing_node,
    user_servers,
)
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

pytestmark = pytest.mark.skipif(missing_node() is not None, reason=missing_node() or "")


def _call(
    rho: RhoProcess, server: ScriptedServer, tool: str, args: dict[str, Any]
) -> dict[str, Any]:
    server.add(tool_call_reply(tool, args), text_reply("done"))
    rho.request("prompt", {"message": "go"})
    rho.wait_for(lambda m: m.get("method") in ("agent/end", "agent/error"))
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"][-1]


def test_the_reference_server_works_end_to_end(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path
) -> None:
    command = everything_server()
    user_servers(
        home,
        "[mcp_servers.everything]\n"
        f"command = {json.dumps(str(command))}\n"
        'args = ["stdio"]\n'
        "trust_annotations = true\n"
        "startup_timeout_sec = 60\n",
    )
    rho = start_scripted(start_rho, server, "--ephemeral", "--allow", "mcp__everything__*")
    risks = {t["name"]: t["risk"] for t in rho.call("listTools")["result"]["tools"]}
    assert risks["mcp__everything__echo"] == "read"  # readOnlyHint
    assert risks["mcp__everything__gzip-file-as-resource"] == "network"  # openWorldHint
    assert risks["mcp__everything__toggle-simulated-logging"] == "write"  # not destructive
    assert risks["list_mcp_resources"] == "read"

    assert _call(rho, server, "mcp__everything__echo", {"message": "hi"})["output"] == "Echo: hi"
    total = _call(rho, server, "mcp__everything__get-sum", {"a": 2, "b": 3})["output"]
    assert "5" in total
    image = _call(rho, server, "mcp__everything__get-tiny-image", {})
    assert "[image image/png," in image["output"]
    structured = _call(
        rho, server, "mcp__everything__get-structured-content", {"location": "New York"}
    )
    assert "temperature" in structured["output"]

    long = _call(
        rho, server, "mcp__everything__trigger-long-running-operation", {"duration": 1, "steps": 2}
    )
    assert not long["is_error"]
    progress = [
        m["params"]["text"]
        for m in rho.seen
        if m.get("method") == "tool/output" and m["params"]["stream"] == "progress"
    ]
    assert progress == ["1/2\n", "2/2\n"]

    read = _call(
        rho,
        server,
        "read_mcp_resource",
        {"server": "everything", "uri": "demo://resource/static/document/features.md"},
    )
    assert not read["is_error"] and len(read["output"]) > 20

    commands = {c["name"]: c for c in rho.call("listCommands")["result"]["commands"]}
    assert commands["mcp__everything__simple-prompt"]["source"] == "mcp:everything"
    output = rho.call("executeCommand", {"name": "mcp__everything__simple-prompt"})["result"]
    assert output == {"output": "This is a simple prompt without arguments."}
    args = rho.call(
        "executeCommand", {"name": "mcp__everything__args-prompt", "args": "city=Paris"}
    )["result"]["output"]
    assert "Paris" in args

    listed = mcp_servers(rho)["everything"]
    assert listed["state"] == "ready" and listed["resources"] is True
    assert "simple-prompt" in listed["prompts"]
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()
