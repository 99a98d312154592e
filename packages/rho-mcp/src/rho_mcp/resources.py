"""The two resource tools, in the registry while any server offers resources (as in Codex):
`list_mcp_resources` lists every server's resources and resource templates, and
`read_mcp_resource` reads one by its server and URI. Resources are data a server exposes
to be read, so both are `read` — unless a server's `risk` says otherwise for its own."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rho_kernel import Phase, Risk, Tool, ToolContext, ToolError, ToolResult
from rho_mcp.results import block_text, cap

if TYPE_CHECKING:
    from rho_mcp.connection import ServerConnection

#: The most resources one listing shows per server.
MAX_LISTED = 200


#: Risks from the least to the most careful.
_ORDER = (Risk.READ, Risk.WRITE, Risk.NETWORK, Risk.DESTRUCTIVE)


class _ResourceTool(Tool):
    risk = Risk.READ
    phase = Phase.EXPLORATION

    def __init__(self, servers: dict[str, ServerConnection]) -> None:
        self.servers = servers

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        """`read`, unless the server read from sets a `risk` of its own (the highest of
        them when no server is named)."""
        server = arguments.get("server")
        named = self.servers.get(server) if isinstance(server, str) else None
        chosen = [named] if named is not None else list(self.servers.values())
        risks = [Risk(c.spec.config.risk) for c in chosen if c.spec.config.risk is not None]
        return max([Risk.READ, *risks], key=_ORDER.index)

    def _server(self, name: Any) -> ServerConnection:
        connection = self.servers.get(name) if isinstance(name, str) else None
        if connection is None:
            known = ", ".join(sorted(self.servers)) or "none"
            raise ToolError(f"no MCP server {name!r} offers resources (servers: {known})")
        return connection


class ListResources(_ResourceTool):
    """`list_mcp_resources`."""

    name = "list_mcp_resources"
    description = (
        "List the resources (files, records, documents) that MCP servers offer, with their "
        "URIs, and the URI templates they accept. Read one with read_mcp_resource."
    )
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "Only this server's (default: all)."}
        },
        "additionalProperties": False,
    }

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        chosen = [self._server(args["server"])] if args.get("server") else self.servers.values()
        listed: dict[str, Any] = {}
        for connection in chosen:
            listed[connection.name] = await self._listing(connection)
        return ToolResult(cap(json.dumps(listed, ensure_ascii=False, indent=1)))

    async def _listing(self, connection: ServerConnection) -> dict[str, Any]:
        resources = await connection.request(
            lambda client: client.list_resources(), "its resource listing"
        )
        templates = await connection.request(_templates, "its resource templates")
        return {
            "resources": [
                {
                    "uri": str(r.uri),
                    "name": r.name,
                    "mimeType": r.mime_type,
                    "description": r.description,
                }
                for r in resources.resources[:MAX_LISTED]
            ],
            "templates": [
                {"uriTemplate": t.uri_template, "name": t.name, "description": t.description}
                for t in templates.resource_templates[:MAX_LISTED]
            ],
        }


async def _templates(client: Any) -> Any:
    """The server's resource templates (none when it does not offer the method)."""
    import mcp_types
    from mcp.shared.exceptions import MCPError

    try:
        return await client.list_resource_templates()
    except MCPError as exc:
        if exc.code != mcp_types.METHOD_NOT_FOUND:
            raise
        return mcp_types.ListResourceTemplatesResult(resource_templates=[])


class ReadResource(_ResourceTool):
    """`read_mcp_resource`."""

    name = "read_mcp_resource"
    description = "Read one resource of an MCP server by its URI (see list_mcp_resources)."
    parameters = {  # noqa: RUF012
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The server that offers it."},
            "uri": {"type": "string", "description": "The resource's URI."},
        },
        "required": ["server", "uri"],
        "additionalProperties": False,
    }

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        connection = self._server(args.get("server"))
        uri = args.get("uri")
        if not isinstance(uri, str) or not uri:
            raise ToolError("uri: give the resource's URI")
        result = await connection.request(
            lambda client: client.read_resource(uri), f"the read of {uri[:200]}"
        )
        kept: list[dict[str, Any]] = []
        parts = []
        for contents in result.contents:
            text = getattr(contents, "text", None)
            if isinstance(text, str):
                parts.append(text)
            else:
                from mcp_types import EmbeddedResource

                parts.append(block_text(EmbeddedResource(resource=contents), kept))
        details = {"server": connection.name, "uri": uri, **({"content": kept} if kept else {})}
        return ToolResult(cap("\n".join(parts)), details=details)


def resource_tools(servers: dict[str, ServerConnection], made: list[Tool]) -> list[Tool]:
    """Both tools over `servers` (those that offer resources; the tools read it when
    called), or none when there are none. They are made once, into `made`."""
    if not servers:
        return []
    if not made:
        made.extend((ListResources(servers), ReadResource(servers)))
    return list(made)


__all__ = ["ListResources", "ReadResource", "resource_tools"]
