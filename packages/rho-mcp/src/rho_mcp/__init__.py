"""rho-mcp: tools, resources and prompts from Model Context Protocol servers.

Servers are configured in `[mcp_servers.NAME]` tables of rho's config (the keys Codex uses)
or in a project's `.mcp.json` (Claude Code's file); see docs/mcp.md.

- `McpServerConfig`: one server's table; `McpServersTable`: the `[mcp_servers]` section,
  declared by the `rho_mcp.plugin` entry point.
- `tool_name(server, tool)`: the name a server's tool gets in rho (`mcp__server__tool`).
- `add_servers(runtime, servers)`: servers a front end gives one runtime (an editor's, through
  `rho acp`), started as your own; `server_problem(name, table)` makes a table a config.

Each name is imported on first use, keeping pydantic's model building and the MCP SDK off
rho's startup path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
    from rho_mcp.config import McpServerConfig, McpServersTable, server_problem
    from rho_mcp.extra import add_servers
    from rho_mcp.naming import tool_name

_LAZY = {
    "McpServerConfig": "rho_mcp.config",
    "McpServersTable": "rho_mcp.config",
    "server_problem": "rho_mcp.config",
    "add_servers": "rho_mcp.extra",
    "tool_name": "rho_mcp.naming",
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-mcp")

__all__ = [
    "McpServerConfig",
    "McpServersTable",
    "__version__",
    "add_servers",
    "server_problem",
    "tool_name",
]
