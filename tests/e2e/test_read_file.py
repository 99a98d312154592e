"""read_file through the real `rho` process: a range of a large file, with its footer, reaches
both the client and the model, and the model is offered the range parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
from rho_tools_fs.hashline import line_hash


def test_read_file_range_through_the_process(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    (project / "big.py").write_text("".join(f"value_{n} = {n}\n" for n in range(1, 5001)))
    server.add(
        tool_call_reply("read_file", {"path": "big.py", "offset": 2001, "limit": 3}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    response = rho.call("prompt", {"message": "read the middle"})
    assert response["result"]["reply"] == "done"
    assert "approval/request" not in rho.methods_seen()
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result["is_error"] is False
    rows = [f"{n}#{line_hash(f'value_{n} = {n}', n)}:value_{n} = {n}" for n in (2001, 2002, 2003)]
    assert result["output"] == (
        "<context>\n" + "\n".join(rows) + "\n<context:end>\n"
        "[lines 2001-2003 of 5000; read on with offset=2004]"
    )
    tools = {t["function"]["name"]: t["function"] for t in server.requests[0].json["tools"]}
    assert {"offset", "limit"} <= set(tools["read_file"]["parameters"]["properties"])
    tool_message = json.dumps(server.requests[-1].json["messages"][-1])
    assert "read on with offset=2004" in tool_message
    assert rho.finish() == 0
