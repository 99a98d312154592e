"""`listMcpServers` and `restartMcpServer`, added through `rho_register_rpc_methods`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rho_kernel import RpcError, RpcMethod, Runtime
from rho_kernel.rpc import INVALID_PARAMS, NoParams, declared_methods
from rho_mcp.plugin import METHODS

#: The error code of a server that cannot be restarted.
MCP_ERROR = -32021


class _Model(BaseModel):
    """Base of these methods' models: their schemas are built on first use."""

    model_config = ConfigDict(defer_build=True)


class McpServerInfo(_Model):
    """One configured server."""

    name: str
    state: str = Field(
        description="starting, ready, failed, exited (went away; the next call starts it "
        "again), stopped, disabled or untrusted."
    )
    transport: str = Field(description="`stdio` (a command rho starts) or `http`.")
    source: str = Field(description="The file that configures it.")
    origin: str = Field(description="`user`, `project` (.rho/config.toml) or `mcp.json`.")
    confined: bool = Field(description="Whether its process runs in the OS sandbox.")
    required: bool
    tools: list[str] = Field(description="Its tools' names in rho.")
    prompts: list[str] = Field(description="Its prompts (commands).")
    resources: bool = Field(description="Whether it offers resources.")
    error: str | None = Field(None, description="Why it is not running.")
    logPath: str | None = Field(None, description="Where its stderr is written (stdio only).")
    starts: int = Field(description="How many times rho started it.")


class ListMcpServersResult(_Model):
    """Every configured server."""

    servers: list[McpServerInfo]


class RestartMcpServerParams(_Model):
    """`restartMcpServer` params."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The server's name, as listMcpServers shows it.")


class RestartMcpServerResult(_Model):
    """The server after its restart."""

    server: McpServerInfo


class McpMethods:
    """The handlers, finding the runtime's manager when called."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def _manager(self) -> Any:
        from rho_mcp.running import known_manager

        return await known_manager(self.runtime)

    async def list_servers(self, _: NoParams) -> ListMcpServersResult:
        manager = await self._manager()
        if manager is None:
            return ListMcpServersResult(servers=[])
        return ListMcpServersResult(
            servers=[
                McpServerInfo.model_validate(manager.describe(connection))
                for connection in manager.connections.values()
            ]
        )

    async def restart_server(self, params: RestartMcpServerParams) -> RestartMcpServerResult:
        manager = await self._manager()
        if manager is None or params.name not in manager.connections:
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: name: no MCP server {params.name!r} (see listMcpServers)",
            )
        connection = manager.connections[params.name]
        if not connection.startable:
            raise RpcError(
                MCP_ERROR,
                f"MCP server {params.name!r} cannot start: {connection.error or connection.state}",
            )
        await manager.restart(params.name)
        return RestartMcpServerResult(
            server=McpServerInfo.model_validate(manager.describe(connection))
        )


def mcp_methods(runtime: Runtime) -> list[RpcMethod]:
    """The methods, bound to `runtime` (as `rho_mcp.plugin.METHODS` declares them)."""
    handlers = McpMethods(runtime)
    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "listMcpServers": (handlers.list_servers, NoParams, ListMcpServersResult),
        "restartMcpServer": (
            handlers.restart_server,
            RestartMcpServerParams,
            RestartMcpServerResult,
        ),
    }
    return declared_methods(METHODS, parts)


__all__ = ["MCP_ERROR", "mcp_methods"]
