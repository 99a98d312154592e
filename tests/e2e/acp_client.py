"""The client side of ACP tests: the SDK's `spawn_agent_process` driving the real `rho acp`,
with a client that records what the agent sends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)
from rho_process import RHO, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer


class RecordingClient:
    """An ACP client that records every update and answers permission requests with
    `choice` (an option id, or None: cancelled)."""

    def __init__(self, choice: str | None = "allow-once") -> None:
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.choice = choice

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        if self.choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.choice)
        )

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def kinds(self) -> list[str]:
        return [update.session_update for update in self.updates]

    def text(self) -> str:
        return "".join(
            u.content.text for u in self.updates if u.session_update == "agent_message_chunk"
        )


def run_acp(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 120))


async def with_agent(
    client: RecordingClient,
    server: ScriptedServer,
    home: Path,
    project: Path,
    body: Any,
    capabilities: ClientCapabilities | None = None,
) -> Any:
    """Start `rho acp` for `client`, shake hands (offering `capabilities`) and run `body`."""
    args = ("acp", "--endpoint", server.chat_url, "-m", "scripted-model")
    async with spawn_agent_process(client, RHO, *args, env=rho_env(home), cwd=project) as (
        conn,
        _process,
    ):
        answer = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        assert answer.protocol_version == PROTOCOL_VERSION
        return await body(conn)


class EditorClient(RecordingClient):
    """A client holding the project's files as an editor does: `buffers` (absolute path →
    text) are its open files, unsaved; it serves `fs/read_text_file` from them (else the
    disk) and records each `fs/write_text_file` in `writes` and its buffer, never on disk.
    `refuse` makes every write fail."""

    def __init__(self, choice: str | None = "allow-once", refuse: bool = False) -> None:
        super().__init__(choice)
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.refuse = refuse

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        self.reads.append(path)
        if path not in self.buffers:
            self.buffers[path] = Path(path).read_text()
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        if self.refuse:
            raise RequestError.internal_error({"message": "the buffer is read-only"})
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()


def offering(read: bool = True, write: bool = True) -> ClientCapabilities:
    """Client capabilities offering ACP's file methods."""
    return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=read, write_text_file=write))
