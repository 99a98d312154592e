"""A hand-written MCP server for rho-mcp's tests, needing nothing but Python's standard
library: it runs where the SDK cannot be imported (in the OS sandbox, which hides the
virtual environment), and lists tools exactly as given, schemas unchecked, as a hostile
server would.

`python raw_mcp_server.py SPEC.json`, the spec holding `tools`: `[{"name", "inputSchema"?,
"behavior"?, "size"?}]`, where behavior is `echo` (the default: the `text` argument back),
`env` (the value of the variable `name`), `touch` (writes the file `path`) or
`error_result` (a result marked as an error: `size` bytes of text). It answers
`initialize`, `tools/list` and `tools/call` over stdio, one JSON message per line; with
`resources` (`[{"uri", "name", "text"}]`) and `prompts` (`[{"name"}]`) it offers those too.
A hostile server: `errors` (`{"METHOD": SIZE}`) answers each request for METHOD with a
JSON-RPC error whose message and data are SIZE bytes each.
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


def _capabilities(spec: dict[str, Any]) -> dict[str, Any]:
    offered: dict[str, Any] = {"tools": {}}
    for kind in ("resources", "prompts"):
        if kind in spec:
            offered[kind] = {}
    return offered


def _answer(message: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    method, params = message["method"], message.get("params") or {}
    tools = spec.get("tools", [])
    if method == "initialize":
        return {
            "protocolVersion": params["protocolVersion"],
            "capabilities": _capabilities(spec),
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        hidden = ("behavior", "size")
        return {"tools": [{k: v for k, v in tool.items() if k not in hidden} for tool in tools]}
    if method == "tools/call":
        tool = next((t for t in tools if t.get("name") == params.get("name")), {})
        if tool.get("behavior") == "error_result":
            text = "E" * int(tool.get("size", 10))
            return {"content": [{"type": "text", "text": text}], "isError": True}
        text = _call(tool, params.get("arguments") or {})
        return {"content": [{"type": "text", "text": text}]}
    if method == "resources/list":
        return {"resources": [{"uri": r["uri"], "name": r["name"]} for r in spec["resources"]]}
    if method == "resources/read":
        found = [r for r in spec["resources"] if r["uri"] == params.get("uri")]
        return {"contents": [{"uri": r["uri"], "text": r["text"]} for r in found]}
    if method == "prompts/list":
        return {"prompts": spec["prompts"]}
    return {}


def _reply(message: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    size = spec.get("errors", {}).get(message["method"])
    if size is not None:
        error = {"code": -32050, "message": "M" * size, "data": "D" * size}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": _answer(message, spec)}


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        sys.stdout.write(json.dumps(_reply(message, spec)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
