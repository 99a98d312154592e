"""Benchmark: what rho-mcp costs.

Run: uv run python bench/mcp_calls.py [runs]
1. exec → `ready` of the real `rho` with 0, 1 and 8 MCP servers configured (stdio, the tests'
   SDK-written server): servers start after `ready`, so the figure must not move.
2. One tool call's round trip to the same stdio server (an `echo`), median over `runs` × 20
   calls: through the SDK's own client and stdio transport, and through rho-mcp (its
   transport, connection and `McpTool.execute`, result conversion included). Target (issue
   25): rho adds at most 2 ms per call.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rho_start import compile_workspace, time_to_ready

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "rho_mcp" / "mcp_test_server.py"
ECHO = {"name": "echo", "behavior": "echo", "inputSchema": {"type": "object"}}
CALLS = 20


def _spec(folder: Path) -> Path:
    path = folder / "echo.json"
    path.write_text(json.dumps({"tools": [ECHO]}))
    return path


def _configure(home: Path, spec: Path, servers: int) -> None:
    config = home / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    tables = [
        f"[mcp_servers.s{n}]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps([str(SERVER), str(spec)])}\n"
        for n in range(servers)
    ]
    config.write_text("\n".join(tables))


async def sdk_calls(spec: Path) -> list[float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(spec)])
    samples = []
    async with Client(params, mode="legacy", cache=None) as client:
        await client.call_tool("echo", {"text": "warm"})
        for n in range(CALLS):
            started = time.perf_counter()
            await client.call_tool("echo", {"text": f"call {n}"})
            samples.append(time.perf_counter() - started)
    return samples


async def rho_calls(spec: Path, logs: Path) -> list[float]:
    from rho_kernel import CancelToken, ToolContext
    from rho_kernel.config import RhoConfig
    from rho_kernel.security import SandboxRoot
    from rho_mcp.config import McpServerConfig
    from rho_mcp.connection import ServerConnection
    from rho_mcp.sources import ServerSpec
    from rho_mcp.stdio import ChildCommand, child_transport
    from rho_mcp.tool import McpTool

    config = McpServerConfig(command=sys.executable, args=[str(SERVER), str(spec)])
    server = ServerSpec("bench", config, "user", logs)

    def transport(connection: ServerConnection) -> Any:
        command = ChildCommand(
            [sys.executable, str(SERVER), str(spec)],
            Path.cwd(),
            dict(os.environ),
            logs / "bench.log",
            on_exit=connection.gone,
        )
        return child_transport(command)

    connection = ServerConnection(server, transport, lambda _: None)
    connection.start()
    await connection.settled()
    tool = McpTool(connection, connection.offer.tools[0], "mcp__bench__echo")
    ctx = ToolContext(root=SandboxRoot(Path.cwd()), config=RhoConfig(), cancel=CancelToken())
    await tool.execute({"text": "warm"}, ctx)
    samples = []
    for n in range(CALLS):
        started = time.perf_counter()
        await tool.execute({"text": f"call {n}"}, ctx)
        samples.append(time.perf_counter() - started)
    await connection.stop()
    return samples


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        spec = _spec(Path(tmp))
        env = {**os.environ, "HOME": tmp}
        ready: dict[int, list[float]] = {0: [], 1: [], 8: []}
        time_to_ready(project, env)  # warm the file cache
        for _ in range(runs):  # alternated, so that each count meets the same machine
            for servers, samples in ready.items():
                _configure(Path(tmp), spec, servers)
                samples.append(time_to_ready(project, env) * 1000)
        for servers, samples in ready.items():
            print(
                f"exec → ready with {servers} MCP servers configured: median "
                f"{statistics.median(samples):.0f} ms, min {min(samples):.0f} ms ({runs} runs)"
            )
        sdk: list[float] = []
        ours: list[float] = []
        for _ in range(runs):  # alternated, so that both meet the same machine
            sdk += asyncio.run(sdk_calls(spec))
            ours += asyncio.run(rho_calls(spec, Path(tmp)))
    sdk_ms, ours_ms = statistics.median(sdk) * 1000, statistics.median(ours) * 1000
    print(f"tool call through the SDK's own client: median {sdk_ms:.2f} ms ({len(sdk)} calls)")
    print(
        f"tool call through rho-mcp: median {ours_ms:.2f} ms ({ours_ms - sdk_ms:+.2f} ms over "
        "the SDK)"
    )


if __name__ == "__main__":
    main()
