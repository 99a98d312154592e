"""An MCP server written with the SDK for rho-mcp's tests, run as its own process.

`python mcp_test_server.py SPEC.json` serves over stdio; with `"http": "PORTFILE"` in the
spec it serves Streamable HTTP on an ephemeral 127.0.0.1 port and writes the port to
PORTFILE. The spec (JSON) says what it offers:

- `tools`: `[{"name", "behavior", "description"?, "inputSchema"?, "outputSchema"?,
  "annotations"?}]`, where
  behavior is `echo` (the `text` argument back), `big` (`size` bytes of text), `image`,
  `mixed` (text, an embedded resource, a link, an image and audio), `structured`, `error`
  (a tool error), `crash` (the process exits mid-call), `block` (never answers; writes
  `marker`.started as it starts, `marker` when the call is cancelled), `grow` (adds a tool `late` and says the list
  changed), `env` (the value of the variable `name`), `cwd`, `pid`, `touch` (writes
  the file `path`), `spawn` (starts a `sleep` of its own; answers its pid), `flood`
  (says the tool list changed `times` times), `listings` (how often tools were listed);
- `prompts`: `[{"name", "description"?, "arguments"?: [names]}]`: each answers with its
  arguments joined; `resources`: `[{"uri", "name", "text"}]`;
- `hang`: true: never answer anything (not even initialize);
- `stderr`: a line written to stderr at start.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

#: How many times the tools were listed.
LISTINGS = [0]
#: While a flood of list changes is being sent: the event set when it is over.
FLOODING: list[anyio.Event] = []


def _tool(entry: dict[str, Any]) -> types.Tool:
    return types.Tool.model_validate(
        {
            "name": entry["name"],
            "description": entry.get("description", f"the {entry['behavior']} tool"),
            "inputSchema": entry.get("inputSchema", {"type": "object", "properties": {}}),
            **({"annotations": entry["annotations"]} if "annotations" in entry else {}),
            **({"outputSchema": entry["outputSchema"]} if "outputSchema" in entry else {}),
        }
    )


def build(spec: dict[str, Any]) -> Server[Any]:
    tools = [dict(entry) for entry in spec.get("tools", [])]
    prompts = spec.get("prompts", [])
    resources = spec.get("resources", [])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        LISTINGS[0] += 1
        if FLOODING:  # a listing asked for mid-flood is answered once the flood is over
            await FLOODING[0].wait()
        return types.ListToolsResult(tools=[_tool(entry) for entry in tools])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        entry = next((t for t in tools if t["name"] == params.name), None)
        if entry is None:
            return types.CallToolResult(
                content=[types.TextContent(text="no such tool")], is_error=True
            )
        return await _run(entry, dict(params.arguments or {}), ctx, tools)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=p["name"],
                    description=p.get("description"),
                    arguments=[
                        types.PromptArgument(name=a, required=True) for a in p.get("arguments", [])
                    ],
                )
                for p in prompts
            ]
        )

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        given = params.arguments or {}
        text = f"prompt {params.name}: " + ", ".join(f"{k}={v}" for k, v in sorted(given.items()))
        return types.GetPromptResult(
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))]
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[types.Resource(uri=r["uri"], name=r["name"]) for r in resources]
        )

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        found = [r for r in resources if r["uri"] == str(params.uri)]
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=r["uri"], text=r["text"]) for r in found]
        )

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if prompts:
        handlers |= {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt}
    if resources:
        handlers |= {"on_list_resources": list_resources, "on_read_resource": read_resource}
    return Server(spec.get("name", "test-server"), **handlers)


def _text(text: str) -> types.TextContent:
    return types.TextContent(text=text)


async def _run(
    entry: dict[str, Any], args: dict[str, Any], ctx: Any, tools: list[dict[str, Any]]
) -> types.CallToolResult:
    behavior = entry["behavior"]
    pixel = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 24).decode()
    if behavior == "echo":
        return types.CallToolResult(content=[_text(str(args.get("text", "")))])
    if behavior == "big":
        return types.CallToolResult(content=[_text("x" * int(args.get("size", 10_000_000)))])
    if behavior == "image":
        return types.CallToolResult(content=[types.ImageContent(data=pixel, mime_type="image/png")])
    if behavior == "mixed":
        return types.CallToolResult(
            content=[
                _text("first"),
                types.EmbeddedResource(
                    resource=types.TextResourceContents(uri="file:///notes.txt", text="the notes")
                ),
                types.ResourceLink(uri="file:///big.bin", name="big"),
                types.ImageContent(data=pixel, mime_type="image/png"),
                types.AudioContent(
                    data=base64.b64encode(b"RIFF" * 4).decode(), mime_type="audio/wav"
                ),
            ]
        )
    if behavior == "structured":
        return types.CallToolResult(content=[], structured_content={"answer": 42})
    if behavior == "error":
        return types.CallToolResult(content=[_text("the tool failed on purpose")], is_error=True)
    if behavior == "crash":
        os._exit(3)
    if behavior == "block":
        Path(entry["marker"] + ".started").write_text("started")
        try:
            await anyio.sleep_forever()
        finally:
            Path(entry["marker"]).write_text("cancelled")
    if behavior == "grow":
        if not any(t["name"] == "late" for t in tools):
            tools.append({"name": "late", "behavior": "echo"})
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[_text("grown")])
    if behavior == "env":
        return types.CallToolResult(
            content=[_text(os.environ.get(str(args.get("name")), "<unset>"))]
        )
    if behavior == "touch":
        try:
            Path(str(args.get("path"))).write_text("touched")
        except OSError as exc:
            return types.CallToolResult(content=[_text(f"refused: {exc.strerror}")])
        return types.CallToolResult(content=[_text("written")])
    if behavior == "spawn":  # a child of its own, in its process group
        import subprocess

        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
        return types.CallToolResult(content=[_text(str(child.pid))])
    if behavior == "flood":  # the tool list "changes" many times at once
        FLOODING.append(anyio.Event())
        for _ in range(int(args.get("times", 200))):
            await ctx.session.send_tool_list_changed()
        FLOODING.pop().set()
        return types.CallToolResult(content=[_text("flooded")])
    if behavior == "listings":
        return types.CallToolResult(content=[_text(str(LISTINGS[0]))])
    if behavior == "pid":
        return types.CallToolResult(content=[_text(str(os.getpid()))])
    if behavior == "cwd":
        return types.CallToolResult(content=[_text(os.getcwd())])
    raise ValueError(f"unknown behavior {behavior}")


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def _serve_http(server: Server[Any], port_file: str) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="error", lifespan="on")
    served = uvicorn.Server(config)
    Path(port_file + ".tmp").write_text(str(sock.getsockname()[1]))
    os.replace(port_file + ".tmp", port_file)
    await served.serve(sockets=[sock])


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    if "stderr" in spec:
        print(spec["stderr"], file=sys.stderr, flush=True)
    if spec.get("hang"):
        while sys.stdin.buffer.readline():
            pass
        return
    server = build(spec)
    if "http" in spec:
        anyio.run(_serve_http, server, spec["http"])
    else:
        anyio.run(_serve_stdio, server)


if __name__ == "__main__":
    main()
