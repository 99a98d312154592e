"""A hand-written MCP server for rho-mcp's tests, needing nothing but Python's standard
library: it runs where the SDK cannot be imported (in the OS sandbox, which hides the
virtual environment), and lists tools exactly as given, schemas unchecked, as a hostile
server would.

`python raw_mcp_server.py SPEC.json`, the spec holding `tools`: `[{"name", "inputSchema"?,
"behavior"?}]`, where behavior is `echo` (the default: the `text` argument back), `env` (the
value of the variable `name`) or `touch` (writes the file `path`). It answers `initialize`,
`tools/list` and `tools/call` over stdio, one JSON message per line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def _call(tool: dict[str, Any], args: dict[str, Any]) -> str:
    behavior = tool.get("behavior", "echo")
    if behavior == "env":
        return os.environ.get(str(args.get("name")), "<unset>")
    if behavior == "touch":
        try:
            Path(str(args.get("path"))).write_text("touched")
        except OSError as exc:
            return f"refused: {exc.strerror}"
        return "written"
    return str(args.get("text", ""))


def _answer(message: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        listed = [{k: v for k, v in tool.items() if k != "behavior"} for tool in tools]
        return {"tools": listed}
    if method == "tools/call":
        tool = next((t for t in tools if t.get("name") == params.get("name")), {})
        text = _call(tool, params.get("arguments") or {})
        return {"content": [{"type": "text", "text": text}]}
    return {}


def main() -> None:
    tools = json.loads(Path(sys.argv[1]).read_text())["tools"]
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": _answer(message, tools)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
