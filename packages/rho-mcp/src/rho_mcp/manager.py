"""`McpManager`: the runtime's servers, started after `ready`, and their tools in the registry.

What the model can call changes only between turns: a server that starts, lists its tools
again (`notifications/tools/list_changed`) or is restarted while a prompt runs has its tools
put in the registry when the next prompt starts (`apply_pending`), never in the middle of a
turn. A server's tools stay registered while it is away (a call starts it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rho_kernel import Runtime, Tool, ToolError, escape_controls, state_dir, user_home
from rho_mcp.connection import ServerConnection
from rho_mcp.environment import child_environment, request_headers
from rho_mcp.extra import EXTRA_SERVERS
from rho_mcp.naming import unique_name
from rho_mcp.resources import resource_tools
from rho_mcp.results import MAX_SHORT_ERROR, error_text
from rho_mcp.sources import MCP_JSON, ServerSpec, Sources, read_sources, untrusted_message
from rho_mcp.stdio import (
    MAX_MESSAGE_BYTES,
    ChildCommand,
    child_transport,
    kill_group,
)
from rho_mcp.tool import McpTool

if TYPE_CHECKING:
    from rho_mcp.stdio import Launching

#: The plugin name the MCP tools are registered under.
PLUGIN = "rho-mcp"
#: The `source` of a server a front end gave (see `rho_mcp.extra`).
GIVEN = Path("(given by the client)")


class McpManager:
    """Every configured server of one runtime."""

    def __init__(self, runtime: Runtime, environ: Mapping[str, str] | None = None) -> None:
        self.runtime = runtime
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.report = _reporter(runtime)
        self.sources: Sources = read_sources(
            runtime.root.path, runtime.options.home, self.environ, self.report
        )
        for name, config in (runtime.stash.get(EXTRA_SERVERS) or {}).items():
            self.sources.servers[name] = ServerSpec(name, config, "user", GIVEN)
        version = _version()
        self.connections = {
            name: ServerConnection(spec, self._open_transport, self._changed, version)
            for name, spec in self.sources.servers.items()
        }
        self.registered: dict[str, Tool] = {}
        self._resource_servers: dict[str, ServerConnection] = {}
        self._resource_tools: list[Tool] = []
        self.pending = False
        self._pids: dict[str, int] = {}
        self._skipped: set[tuple[str, str, str]] = set()

    # ── lifecycle ───────────────────────────────────────────────────────────

    async def start_all(self) -> None:
        """Start every server that may start and wait until each has settled (ready, or
        failed: at most its `startup_timeout_sec`)."""
        for path, names in self.sources.untrusted.items():
            if path.name == MCP_JSON:  # the kernel names a config file's servers itself
                self.report(untrusted_message(path, names))
        for connection in self.connections.values():
            if connection.state == "failed" and connection.error:
                self.report(f"MCP server '{connection.name}' not started: {connection.error}")
            connection.start()
        await asyncio.gather(*(c.settled() for c in self.connections.values()))
        for connection in self.connections.values():
            if connection.starts and connection.state == "failed":
                self.report(self._failure(connection))
        self.apply_pending()

    def _failure(self, connection: ServerConnection) -> str:
        config = connection.spec.config
        where = f" (its log: {self.log_path(connection.name)})"
        if config.url is not None:
            where = f" ({shown_url(config.url)})"
        required = "; prompts fail until it runs (required = true)" if config.required else ""
        return (
            f"MCP server '{connection.name}' failed to start: {connection.error}{where}{required}"
        )

    async def revive_required(self) -> None:
        """Start each `required` server that is not running and may be started now."""
        for connection in self.connections.values():
            config = connection.spec.config
            if config.required and config.enabled and connection.state != "ready":
                with contextlib.suppress(ToolError):  # `refusal` says why
                    await connection.ready_client()

    def refusal(self) -> str | None:
        """Why a prompt cannot run: a `required` server that is not running."""
        for connection in self.connections.values():
            config = connection.spec.config
            if config.required and config.enabled and connection.state != "ready":
                why = connection.error or connection.state
                return f"the required MCP server '{connection.name}' is not running: {why}"
        return None

    def close(self) -> None:
        """Stop every server's process now (rho is exiting): SIGTERM to each process group,
        a moment to exit, then SIGKILL. The owner tasks end with the event loop."""
        groups = [pid for pid in self._pids.values() if kill_group(pid, signal.SIGTERM)]
        deadline = time.monotonic() + 1.0
        while groups and time.monotonic() < deadline:
            time.sleep(0.02)
            groups = [pid for pid in groups if kill_group(pid, 0)]
        for pid in groups:
            kill_group(pid)
        self._pids.clear()

    async def restart(self, name: str) -> ServerConnection:
        """Restart server `name` (KeyError when there is none)."""
        connection = self.connections[name]
        await connection.restart()
        return connection

    # ── transports ──────────────────────────────────────────────────────────

    def _open_transport(self, connection: ServerConnection) -> Any:
        spec = connection.spec
        if spec.config.command is not None:
            return child_transport(self._child_command(connection))
        return self._http_transport(spec)

    def log_path(self, name: str) -> Path:
        """Where server `name`'s stderr is written (one file per server and project)."""
        root = str(self.runtime.root.path).encode("utf-8", "surrogateescape")
        project = hashlib.sha256(root).hexdigest()[:8]
        return state_dir(self.runtime.options.home) / "logs" / f"mcp-{name}-{project}.log"

    def _working_directory(self, spec: ServerSpec) -> Path:
        """Where a server's process starts: its `cwd` (relative to the project root); by
        default the project root for a repository's server, and for your own the home
        directory — run in an untrusted project, a program that loads code from where it
        starts (`python -m`, `npx`) would otherwise run the repository's. A repository's
        server may not start outside the project."""
        root = self.runtime.root.path
        if spec.config.cwd is None:
            return root if spec.origin != "user" else user_home(self.runtime.options.home)
        cwd = Path(os.path.realpath(root / spec.config.cwd))
        if spec.origin != "user" and not cwd.is_relative_to(os.path.realpath(root)):
            raise RuntimeError(f"its cwd {spec.config.cwd!r} is outside the project")
        return cwd

    def _child_command(self, connection: ServerConnection) -> ChildCommand:
        spec = connection.spec
        config = spec.config
        assert config.command is not None
        name = connection.name

        def started(pid: int) -> None:
            self._pids[name] = pid

        def stopped(pid: int) -> None:
            if self._pids.get(name) == pid:
                del self._pids[name]

        return ChildCommand(
            argv=[config.command, *config.args],
            cwd=self._working_directory(spec),
            env=child_environment(config, self.environ),
            log=self.log_path(name),
            launch=self._launching(spec),
            on_exit=connection.gone,
            on_start=started,
            on_stopped=stopped,
        )

    def _launching(self, spec: ServerSpec) -> Launching | None:
        """How a server that must be confined starts: under the OS sandbox; unconfined only
        where the user turned the sandbox off or opted out (`[sandbox] require = false`).
        Where no sandbox works otherwise it does not start: nobody is there to approve it
        the way a command is approved."""
        if not spec.confined:
            return None
        from rho_kernel import ConfinementRefused

        try:
            launcher = self.runtime.confinement.launcher(network=spec.config.network)
        except ConfinementRefused as exc:
            raise RuntimeError(f"it must run in the OS sandbox: {exc}") from None
        return launcher

    def _http_transport(self, spec: ServerSpec) -> Any:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        headers, unset = request_headers(spec.config, self.environ)
        if unset:
            raise RuntimeError(f"environment variables not set: {', '.join(unset)}")
        url = spec.config.url
        assert url is not None

        @asynccontextmanager
        async def transport() -> AsyncIterator[Any]:
            async with (
                create_mcp_http_client(headers=headers) as http,
                streamable_http_client(
                    url, http_client=http, max_sse_event_size=MAX_MESSAGE_BYTES
                ) as streams,
            ):
                yield streams

        return transport()

    # ── the registry ────────────────────────────────────────────────────────

    def _changed(self, connection: ServerConnection) -> None:
        self.pending = True
        if not self.runtime.busy:
            self.apply_pending()

    def apply_pending(self) -> None:
        """Put the servers' current tools in the registry (call it between turns)."""
        if not self.pending:
            return
        self.pending = False
        wanted = self._wanted_tools()
        registry = self.runtime.tools
        for name, tool in list(self.registered.items()):
            if wanted.get(name) is not tool:
                registry.unregister(name)
                del self.registered[name]
        for name, tool in wanted.items():
            if name not in self.registered:
                registry.register(tool, PLUGIN)
                self.registered[name] = tool

    def _listed(self) -> list[ServerConnection]:
        """The servers whose tools are offered: all but the stopped and those that may not
        run (one that went away keeps its tools: a call starts it again)."""
        for connection in self.connections.values():
            for tool_name, why in connection.offer.skipped:
                self._skip(connection, tool_name, why)
        return [
            c
            for c in self.connections.values()
            if c.state not in ("stopped", "disabled", "untrusted")
        ]

    def _wanted_tools(self) -> dict[str, Tool]:
        current = {
            (tool.connection.name, tool.remote_name, id(tool.parameters)): tool
            for tool in self.registered.values()
            if isinstance(tool, McpTool)
        }
        taken = {tool.name for tool in self.runtime.tools if tool.name not in self.registered}
        wanted: dict[str, Tool] = {}
        listed = self._listed()
        for connection in listed:
            for remote in connection.offer.tools:
                if not self._offered(connection, remote):
                    continue
                kept = current.get((connection.name, remote.name, id(remote.input_schema)))
                name = kept.name if kept is not None else None
                if name is None or name in taken or name in wanted:
                    name = unique_name(connection.name, remote.name, taken | set(wanted))
                    if name in taken or name in wanted:
                        self._skip(connection, remote.name, f"no free name (tried {name})")
                        continue
                    kept = None
                wanted[name] = kept or McpTool(connection, remote, name)
        self._resource_servers.clear()
        self._resource_servers.update((c.name, c) for c in listed if c.offer.resources)
        for tool in resource_tools(self._resource_servers, self._resource_tools):
            if tool.name in taken:
                self.report(
                    f"rho-mcp: {tool.name} left out: another plugin has a tool of that name"
                )
            else:
                wanted[tool.name] = tool
        return wanted

    def _offered(self, connection: ServerConnection, remote: Any) -> bool:
        config = connection.spec.config
        if config.enabled_tools is not None and remote.name not in config.enabled_tools:
            return False
        if remote.name in config.disabled_tools:
            return False
        problem = connection.offer.schema_problem(remote)
        if problem is not None:
            self._skip(connection, remote.name, problem)
            return False
        return True

    def _skip(self, connection: ServerConnection, tool: str, why: str) -> None:
        key = (connection.name, tool, why)
        if key not in self._skipped:
            self._skipped.add(key)
            why = error_text(why, MAX_SHORT_ERROR)
            self.report(f"MCP server '{connection.name}': tool {tool[:100]!r} left out: {why}")

    def describe(self, connection: ServerConnection) -> dict[str, Any]:
        """What `listMcpServers` says of a server."""
        spec = connection.spec
        return {
            "name": connection.name,
            "state": connection.state,
            "transport": spec.config.transport,
            "source": str(spec.path),
            "origin": spec.origin,
            "confined": spec.config.transport == "stdio" and spec.confined,
            "required": spec.config.required,
            "tools": sorted(
                n
                for n, t in self.registered.items()
                if isinstance(t, McpTool) and t.connection is connection
            ),
            "prompts": [prompt.name for prompt in connection.offer.prompts],
            "resources": connection.offer.resources,
            "error": connection.error,
            "logPath": str(self.log_path(connection.name))
            if spec.config.transport == "stdio"
            else None,
            "starts": connection.starts,
        }

    def summary(self, connection: ServerConnection) -> dict[str, Any]:
        """What `getState`'s `mcp` says of a server."""
        tools = sum(
            1
            for tool in self.registered.values()
            if isinstance(tool, McpTool) and tool.connection is connection
        )
        return {
            "name": connection.name,
            "state": connection.state,
            "tools": tools,
            "error": connection.error,
        }


def shown_url(url: str) -> str:
    """`url` without what may hold a secret (user and password, query, fragment)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _reporter(runtime: Runtime) -> Callable[[str], None]:
    """Report on stderr with a server's words made inert (no escape sequences), and the
    SDK's own warnings routed the same way (one line each, never a traceback)."""

    def report(text: str) -> None:
        runtime.plugins.report(escape_controls(text))

    sdk = logging.getLogger("mcp")
    if not any(isinstance(h, _SdkWarnings) for h in sdk.handlers):
        sdk.addHandler(_SdkWarnings(report))
        sdk.propagate = False
        sdk.setLevel(logging.WARNING)
    return report


class _SdkWarnings(logging.Handler):
    """The MCP SDK's log records as one reported line each."""

    def __init__(self, report: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self._report = report

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = " ".join(record.getMessage().split())
        except Exception:  # a record that cannot be formatted says so
            message = str(record.msg)
        self._report(f"MCP SDK: {message[:300]}")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rho-mcp")
    except PackageNotFoundError:
        return "0"


__all__ = ["PLUGIN", "McpManager"]
