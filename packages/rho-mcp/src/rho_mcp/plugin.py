"""The `rho-mcp` plugin (entry point `rho-mcp = "rho_mcp.plugin"`): owns `[mcp_servers]`,
starts the configured MCP servers after `ready`, and adds their tools, their prompts (as
commands) and the methods `listMcpServers` and `restartMcpServer`.

Nothing here imports the MCP SDK: the servers are read and started by work begun at
`rho_startup`, which the first prompt waits for, and the SDK is imported only when a server
is configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel import hookimpl

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rho_kernel import Command, RpcMethod, Runtime

#: The config table this plugin reads.
SECTION = "mcp_servers"

#: The methods: name, summary, and whether it runs while a prompt runs.
METHODS = (
    (
        "listMcpServers",
        "Every configured MCP server: its state, transport, tools, error and log file.",
        True,
    ),
    (
        "restartMcpServer",
        "Stop an MCP server and start it again; its tools are updated before the next prompt.",
        False,
    ),
)


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[mcp_servers]` (each `[mcp_servers.NAME]` a server)."""
    from rho_mcp.config import McpServersTable

    return {SECTION: McpServersTable}


@hookimpl
def rho_project_files_to_trust(root: Path) -> list[str]:
    """The project's `.mcp.json`: its servers start only while `rho trust` vouches for it."""
    from rho_mcp.sources import MCP_JSON

    path = root / MCP_JSON
    return [MCP_JSON] if path.is_file() and not path.is_symlink() else []


@hookimpl
def rho_startup(runtime: Runtime) -> None:
    """Read and start the configured servers in the background."""
    from rho_mcp import running

    running.start(runtime)


@hookimpl
def rho_shutdown(runtime: Runtime) -> None:
    """Stop every server's process."""
    from rho_mcp.running import current_manager

    manager = current_manager(runtime)
    if manager is not None:
        manager.close()


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """`listMcpServers` and `restartMcpServer` (their handlers and models are imported on
    the first request, see `rho_mcp.rpc`)."""
    from rho_kernel.rpc import deferred_methods

    def build() -> list[RpcMethod]:
        from rho_mcp.rpc import mcp_methods

        return mcp_methods(runtime)

    return deferred_methods(METHODS, build)


@hookimpl
def rho_state(runtime: Runtime) -> dict[str, Any]:
    """getState's `mcp`: each server's name, state, number of tools and error."""
    from rho_mcp.running import current_manager

    manager = current_manager(runtime)
    servers = [] if manager is None else [manager.summary(c) for c in manager.connections.values()]
    return {"mcp": {"servers": servers}}


@hookimpl
async def rho_prompt_starting(runtime: Runtime) -> str | None:
    """Start again a `required` server that went away (or failed, once its backoff is
    over), put the servers' tool changes in the registry (only ever between turns), and
    refuse the prompt while a required server is not running."""
    from rho_mcp.running import current_manager

    manager = current_manager(runtime)
    if manager is None:
        return None
    await manager.revive_required()
    manager.apply_pending()
    return manager.refusal()


@hookimpl
def rho_register_commands(runtime: Runtime) -> list[Command]:
    """The servers' prompts, as commands with the source `mcp:<server>`."""
    from rho_mcp.running import current_manager

    manager = current_manager(runtime)
    if manager is None:
        return []
    from rho_mcp.prompts import prompt_commands

    return prompt_commands([c for c in manager.connections.values() if c.state == "ready"])


__all__ = [
    "METHODS",
    "SECTION",
    "rho_project_files_to_trust",
    "rho_prompt_starting",
    "rho_register_commands",
    "rho_register_config_sections",
    "rho_register_rpc_methods",
    "rho_shutdown",
    "rho_startup",
    "rho_state",
]
