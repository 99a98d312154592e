"""The MCP servers an editor gives `session/new` and `session/load`, started through rho-mcp
(when it is installed) as your own servers for that session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_acp.handshake import mcp_installed

if TYPE_CHECKING:
    from rho_kernel import Runtime


def server_table(server: Any) -> dict[str, Any] | None:
    """An ACP server description as a `[mcp_servers.NAME]` table (None: SSE or ACP
    transports, which rho does not speak)."""
    if getattr(server, "type", None) == "http":
        headers = {header.name: header.value for header in server.headers or ()}
        return {"url": server.url, "http_headers": headers}
    if hasattr(server, "command"):
        env = {variable.name: variable.value for variable in server.env or ()}
        return {"command": server.command, "args": list(server.args or ()), "env": env}
    return None


def give_servers(runtime: Runtime, servers: list[Any] | None) -> list[str]:
    """Hand `servers` to rho-mcp for `runtime` (before its start); the problems of those
    that cannot be taken, one line each."""
    if not servers:
        return []
    if not mcp_installed():
        return ["MCP servers are not taken: the rho-mcp pack is not installed"]
    from rho_mcp import add_servers, server_problem

    taken: dict[str, Any] = {}
    problems: list[str] = []
    for server in servers:
        name = str(getattr(server, "name", "") or "server")
        table = server_table(server)
        if table is None:
            problems.append(f"MCP server {name!r}: only stdio and http servers are taken")
            continue
        try:
            taken[name] = server_problem(name, table)
        except ValueError as exc:
            problems.append(f"MCP server not taken: {exc}")
    add_servers(runtime, taken)
    return problems


__all__ = ["give_servers", "mcp_installed", "server_table"]
