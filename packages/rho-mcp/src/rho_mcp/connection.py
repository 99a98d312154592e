"""One server's connection, owned by one task from start to end.

The SDK requires a client to be entered and left in the same task, so each start of a
server is one owner task: it opens the transport, does the initialize handshake and lists
what the server offers (all within `startup_timeout_sec`), then holds the connection until
it is stopped or the server goes away. Calls are made from any task while it holds it.

A server that went away (its process exited, its connection broke) is started again by the
next call; one that failed to start is tried again by a call only after a backoff (1, 2, 4 …
up to 60 seconds), so that a broken server costs a quick error, not a wait.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from rho_kernel import ToolError
from rho_mcp.results import MAX_SHORT_ERROR, error_text
from rho_mcp.schema import schema_problem
from rho_mcp.stdio import describe_exit

if TYPE_CHECKING:
    from rho_mcp.sources import ServerSpec

#: What a server is doing (as `listMcpServers` shows it).
State = Literal["starting", "ready", "failed", "exited", "stopped", "disabled", "untrusted"]
#: The longest wait before a failed server is tried again.
MAX_BACKOFF = 60.0
#: How many pages of a listing are read at most.
MAX_PAGES = 100
#: How much longer than its timeout a request may take before the server counts as stuck.
WRITE_GRACE = 5.0

Opener = Callable[["ServerConnection"], Any]


@dataclass(slots=True)
class Offer:
    """What a server offers: its tools, prompts, and whether it has resources; `skipped`
    are the tools its listing held that are malformed (name, why)."""

    tools: list[Any]
    prompts: list[Any]
    resources: bool
    skipped: list[tuple[str, str]] = field(default_factory=list)
    _problems: dict[str, str | None] = field(default_factory=dict)

    def schema_problem(self, tool: Any) -> str | None:
        """Why `tool`'s input schema cannot go to a model (checked once per listing)."""
        if tool.name not in self._problems:
            self._problems[tool.name] = schema_problem(tool.input_schema)
        return self._problems[tool.name]


class ServerConnection:
    """A configured server and, while it runs, its client.

    `open_transport(connection)` gives the transport (an async context manager of the SDK's
    streams) of one start; `changed(connection)` is called whenever what it offers may have
    changed (started, stopped, its tools listed again)."""

    def __init__(
        self,
        spec: ServerSpec,
        open_transport: Opener,
        changed: Callable[[ServerConnection], None],
        version: str = "0",
    ) -> None:
        self.spec = spec
        self._open_transport = open_transport
        self._changed = changed
        self._version = version
        self.state: State = "stopped"
        self.error: str | None = None
        self.offer = Offer([], [], False)
        self.client: Client | None = None
        self.failures = 0
        self.starts = 0
        self._retry_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._wake = asyncio.Event()
        self._stopping = False
        self._exit_code: int | None = None
        self._relisting: asyncio.Task[None] | None = None
        self._relist_again = False
        if not spec.config.enabled:
            self.state = "disabled"
        elif not spec.trusted:
            self.state, self.error = "untrusted", "the project is not trusted (rho trust)"
        elif spec.problem is not None:
            self.state, self.error = "failed", spec.problem

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def startable(self) -> bool:
        """Whether it may be started at all (enabled, trusted, configured right)."""
        return self.state not in ("disabled", "untrusted") and self.spec.problem is None

    # ── starting and stopping ──────────────────────────────────────────────

    def start(self) -> None:
        """Start it in a new owner task (nothing when one runs or it may not start)."""
        if not self.startable or (self._task is not None and not self._task.done()):
            return
        self.state, self.error = "starting", None
        self._settled.clear()
        self._wake.clear()
        self._stopping = self._relist_again = False
        self._exit_code = None
        self.starts += 1
        self._task = asyncio.create_task(self._own(), name=f"mcp server {self.name}")

    async def settled(self) -> None:
        """Wait until the current start has ended, ready or failed."""
        if self._task is not None and not self._task.done():
            await self._settled.wait()

    async def stop(self) -> None:
        """Stop it and wait for its owner task to end (bounded by the transport's stop); a
        start under way is given up at once."""
        task = self._task
        if task is None or task.done():
            return
        self._stopping = True
        self._wake.set()
        if self.state == "starting":
            task.cancel()
        await asyncio.wait([task])

    async def restart(self) -> None:
        """Stop it, forget earlier failures, start it and wait until it has settled."""
        await self.stop()
        if self.startable:
            self.failures, self._retry_at = 0, 0.0
            self.start()
            await self.settled()

    def gone(self, exit_code: int | None = None) -> None:
        """The server went away (its process ended, its connection broke): it is `exited`
        from now on, while its owner task closes what is left of the connection."""
        if exit_code is not None or self._exit_code is None:
            self._exit_code = exit_code
        if self.state in ("ready", "exited") and not self._stopping:
            self.state = "exited"
            self.error = f"the server {describe_exit(self._exit_code)}"
        self._wake.set()

    async def _own(self) -> None:
        try:
            await self._serve()
        except asyncio.CancelledError:
            if not self._stopping:
                self._failed("its start was cancelled")
                raise
            self.state, self.error = "stopped", None  # `stop` gave up a start under way
        except Exception as exc:  # the owner task ends here, whatever happened
            if self._stopping:
                self.state, self.error = "stopped", None
            else:
                self._failed(describe_error(exc))
        finally:
            self.client = None
            self._settled.set()
            self._changed(self)

    async def _serve(self) -> None:
        timeout = self.spec.config.startup_timeout_sec
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
            async with self._client() as client:
                offer = await self._list(client)
                scope.deadline = math.inf
                self.client, self.offer = client, offer
                self.state, self.failures = "ready", 0
                self._settled.set()
                self._changed(self)
                if self._relist_again:  # the list changed while it was first read
                    self._relist()
                await self._wake.wait()
                self.client = None
        if scope.cancelled_caught:
            self._failed(f"it did not finish starting within {timeout:g} s")
        elif self._stopping:
            self.state, self.error = "stopped", None
        else:
            self.gone(self._exit_code)

    def _failed(self, reason: str) -> None:
        self.state, self.error = "failed", reason
        self.failures += 1
        self._retry_at = time.monotonic() + min(MAX_BACKOFF, 2.0 ** (self.failures - 1))

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[Client]:
        client = Client(
            self._open_transport(self),
            mode="legacy",
            cache=None,
            message_handler=self._on_message,
            client_info=mcp_types.Implementation(name="rho", version=self._version),
        )
        async with client:
            yield client

    async def _list(self, client: Client) -> Offer:
        capabilities = client.server_capabilities
        skipped: list[tuple[str, str]] = []
        tools = await self._tools(client, skipped) if capabilities.tools else []
        prompts = await _all_pages(client.list_prompts, "prompts") if capabilities.prompts else []
        resources = capabilities.resources is not None
        return Offer(tools, prompts, resources, skipped)

    async def _tools(self, client: Client, skipped: list[tuple[str, str]]) -> list[Any]:
        try:
            tools: list[Any] = await _all_pages(client.list_tools, "tools")
        except ValidationError as strict:
            from rho_mcp.listing import lenient_tools

            def skip(tool: str, why: str) -> None:
                skipped.append((tool, why))

            try:
                tools = await lenient_tools(client, skip, MAX_PAGES)
            except AttributeError:
                raise strict from None
        return tools

    # ── while it runs ───────────────────────────────────────────────────────

    async def _on_message(self, message: Any) -> None:
        changed = mcp_types.ToolListChangedNotification | mcp_types.PromptListChangedNotification
        if isinstance(message, changed):
            self._relist()

    def _relist(self) -> None:
        """List what it offers again: one listing at a time, and one more after it when the
        list changed meanwhile (a server announcing changes in a burst costs two listings)."""
        self._relist_again = True
        if self.client is None or (self._relisting is not None and not self._relisting.done()):
            return
        self._relisting = asyncio.create_task(self._relist_while_changed())

    async def _relist_while_changed(self) -> None:
        client = self.client
        while self._relist_again and client is not None and self.client is client:
            self._relist_again = False
            try:
                with anyio.fail_after(self.spec.config.startup_timeout_sec):
                    offer = await self._list(client)
            except Exception as exc:
                self.error = f"listing what it offers again failed: {describe_error(exc)}"
                return
            if self.client is client:
                self.offer = offer
                self._changed(self)

    async def ready_client(self) -> Client:
        """The running client, starting the server again when it went away. Raises
        `ToolError` naming the server when it cannot run now."""
        if self.state == "ready" and self.client is not None:
            return self.client
        if not self.startable:
            raise ToolError(f"MCP server '{self.name}' does not run: {self.error or self.state}")
        if self.state != "starting":
            wait = self._retry_at - time.monotonic()
            if self.state == "failed" and wait > 0:
                raise ToolError(
                    f"MCP server '{self.name}' failed to start ({self.error}); rho tries "
                    f"again in {math.ceil(wait)} s"
                )
            if self._task is not None and not self._task.done():
                await asyncio.wait([self._task])  # the connection that went away closes
            self.start()
        await self.settled()
        if self.state != "ready" or self.client is None:
            raise ToolError(f"MCP server '{self.name}' could not be started: {self.error}")
        return self.client

    async def request(
        self, call: Callable[[Client], Awaitable[Any]], what: str, timeout: float | None = None
    ) -> Any:
        """`await call(client)` on the running client; a timeout, protocol error, broken
        connection or invalid result becomes a `ToolError` naming the server and `what`.

        `timeout` (default: the server's `tool_timeout_sec`) also bounds what the SDK's own
        timeout does not: a server that stopped reading its input blocks the request's write,
        and the SDK starts its clock only once the request is written. Past it, the server
        counts as gone (it is started again by the next call)."""
        client = await self.ready_client()
        limit = self.spec.config.tool_timeout_sec if timeout is None else timeout
        try:
            with anyio.fail_after(limit + WRITE_GRACE):
                return await call(client)
        except TimeoutError:
            self.gone(self._exit_code)
            raise ToolError(
                f"MCP server '{self.name}' did not take {what} in time; it is started again "
                "on the next call"
            ) from None
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self.gone(self._exit_code)
                raise ToolError(
                    f"MCP server '{self.name}' went away during {what}; it is started again "
                    "on the next call"
                ) from None
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                raise ToolError(f"MCP server '{self.name}' did not answer {what} in time") from None
            raise ToolError(
                f"MCP server '{self.name}' refused {what}: {error_text(exc.error.message)}"
            ) from None
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            self.gone(self._exit_code)
            raise ToolError(
                f"MCP server '{self.name}' went away during {what} ({error_text(str(exc))})"
            ) from None
        except (RuntimeError, ValueError) as exc:  # the SDK's checks of the server's answer
            raise ToolError(
                f"MCP server '{self.name}' gave an invalid answer to {what}: {error_text(str(exc))}"
            ) from None


async def _all_pages(fetch: Callable[..., Awaitable[Any]], key: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, key))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items


def describe_error(exc: BaseException) -> str:
    """A short account of why a start failed (the first leaf of an exception group), its
    server's text bounded to `MAX_SHORT_ERROR`."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        if exc.code == mcp_types.CONNECTION_CLOSED:
            return "the server closed the connection while starting (see its log)"
        message = error_text(exc.error.message, MAX_SHORT_ERROR)
        return f"the server answered with an error: {message}"
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found ({error_text(str(exc.filename or exc), 300)})"
    if isinstance(exc, asyncio.CancelledError):
        return "its start was cancelled"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return error_text(text, MAX_SHORT_ERROR)


__all__ = ["MAX_BACKOFF", "Offer", "ServerConnection", "State", "describe_error"]
