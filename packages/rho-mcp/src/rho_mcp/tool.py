"""`McpTool`: one tool of an MCP server, in rho's registry like any other.

Its risk: a server's annotations are only hints, so a tool asks (`write`) unless its server
has `trust_annotations = true` — then read-only is `read`, open-world `network`, and
otherwise `destructive`, or `write` when the server says it is not destructive — and a
server's `risk` overrides both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_kernel import Risk, Tool, ToolContext, ToolResult
from rho_mcp.results import tool_result

if TYPE_CHECKING:
    from rho_mcp.config import McpServerConfig
    from rho_mcp.connection import ServerConnection

#: The longest description a tool keeps.
MAX_DESCRIPTION = 2000


def tool_risk(config: McpServerConfig, annotations: Any) -> Risk:
    """The risk of a tool of a server configured as `config`, annotated with `annotations`
    (the SDK's `ToolAnnotations`, or None)."""
    if config.risk is not None:
        return Risk(config.risk)
    if not config.trust_annotations or annotations is None:
        return Risk.WRITE
    if annotations.read_only_hint is True:
        return Risk.READ
    if annotations.open_world_hint is True:
        return Risk.NETWORK
    if annotations.destructive_hint is False:
        return Risk.WRITE
    return Risk.DESTRUCTIVE


class McpTool(Tool):
    """Tool `remote.name` of the server `connection` runs, called `name` in rho."""

    def __init__(self, connection: ServerConnection, remote: Any, name: str) -> None:
        self.connection = connection
        self.remote_name: str = remote.name
        self.name = name
        described = remote.description or remote.title or remote.name
        self.description = described[:MAX_DESCRIPTION]
        self.parameters = remote.input_schema
        self.risk = tool_risk(connection.spec.config, remote.annotations)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        timeout = self.connection.spec.config.tool_timeout_sec

        async def report(progress: float, total: float | None, message: str | None) -> None:
            # A long call's progress is shown live to the client (`tool/output`).
            shown = f"{progress:g}/{total:g}" if total else f"{progress:g}"
            await ctx.report_output("progress", f"{shown}{f' {message}' if message else ''}\n")

        result = await self.connection.request(
            lambda client: client.call_tool(
                self.remote_name, args, read_timeout_seconds=timeout, progress_callback=report
            ),
            f"the call of its tool '{self.remote_name}'",
        )
        return tool_result(result, self.connection.name, self.remote_name)

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """`{tool} ({server}): {first line}`."""
        text = result.output.strip()
        first = text.splitlines()[0] if text else ""
        return f"{self.name} ({self.connection.name}): {first[:120]}"


__all__ = ["MAX_DESCRIPTION", "McpTool", "tool_risk"]
