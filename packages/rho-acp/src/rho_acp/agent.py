"""`RhoAgent`: the agent side of ACP, one rho runtime per session."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionListCapabilities,
)

from rho_acp.history import listed, replay
from rho_acp.session import AcpSession

#: Sessions listed per page.
PAGE = 50

if TYPE_CHECKING:
    from rho_kernel.frontend import RuntimeOptions


class RhoAgent:
    """Serves ACP's agent methods; `base` holds what rho's flags said."""

    def __init__(self, base: RuntimeOptions) -> None:
        self.base = base
        self.sessions: dict[str, AcpSession] = {}
        self.client: Any = None

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        from rho_kernel import __version__

        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=False
                ),
            ),
            agent_info=Implementation(name="rho", title="rho", version=__version__),
        )

    async def _open(self, cwd: str, **changes: Any) -> AcpSession:
        """A session in `cwd` (its project root): a new one, or the one `changes` name."""
        from rho_kernel import hookspecs
        from rho_kernel.frontend import ConfigError, Runtime, StartupError

        options = dataclasses.replace(
            self.base, cwd=Path(cwd), root=Path(cwd), continue_latest=False, **changes
        )
        try:
            runtime = await asyncio.to_thread(Runtime.build, options)
        except (StartupError, ConfigError, OSError, ValueError) as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        runtime.plugins.call_each(hookspecs.rho_startup, runtime=runtime)
        session = AcpSession(runtime, self.client)
        self.sessions[session.id] = session
        return session

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, session=None)
        return NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Open the session and replay its active branch as `session/update`s."""
        if session_id in self.sessions:
            raise RequestError.invalid_params({"message": f"session {session_id!r} is open"})
        session = await self._open(cwd, session=session_id, ephemeral=False)
        for update in replay(session.runtime):
            await self.client.session_update(session_id=session.id, update=update)
        return LoadSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """This project's sessions (`cwd`), `PAGE` at a time; `cursor` is the offset."""
        offset = int(cursor) if cursor and cursor.isdigit() else 0
        root = Path(cwd) if cwd else Path.cwd()  # a session's root is its `cwd`
        found = await asyncio.to_thread(listed, root, self.base.home, PAGE + 1, offset)
        more = len(found) > PAGE
        return ListSessionsResponse(
            sessions=found[:PAGE], next_cursor=str(offset + PAGE) if more else None
        )

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"no session {session_id!r}"})
        return session

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "\n".join(block.text for block in prompt if getattr(block, "type", "") == "text")
        if not text.strip():
            raise RequestError.invalid_params({"message": "the prompt holds no text"})
        return await self._session(session_id).prompt(text)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        """End every session (its file is closed as rho's server closes it)."""
        from rho_kernel import hookspecs

        for session in self.sessions.values():
            runtime = session.runtime
            runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
            await runtime.aclose("client closed")


__all__ = ["RhoAgent"]
