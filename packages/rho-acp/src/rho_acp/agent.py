"""`RhoAgent`: the agent side of ACP, one rho runtime per session."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    CloseSessionResponse,
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from rho_acp.extensions import EXTENSIONS
from rho_acp.files import ClientFiles, FileOffer
from rho_acp.handshake import initialize_result
from rho_acp.history import listed, replay
from rho_acp.mcp import give_servers
from rho_acp.options import MODE_IDS, config_options, effort_value, mode_state
from rho_acp.prompts import prompt_content
from rho_acp.session import AcpSession
from rho_acp.stored import StoredSession, UnknownSession, stored_session

#: Sessions listed per page.
PAGE = 50

if TYPE_CHECKING:
    from rho_kernel.frontend import RuntimeOptions


class RhoAgent:
    """Serves ACP's agent methods; `base` holds what rho's flags said, `handshake` the
    `params` of the client's `initialize` (once it came)."""

    def __init__(self, base: RuntimeOptions, handshake: dict[str, Any] | None = None) -> None:
        self.base = base
        self.handshake = handshake if handshake is not None else {}
        self.sessions: dict[str, AcpSession] = {}
        self.client: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sandbox_said = False

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        """What `rho acp` answers before the SDK is loaded (see `rho_acp.handshake`)."""
        return InitializeResponse.model_validate(
            initialize_result({"protocolVersion": protocol_version})
        )

    async def _open(self, cwd: str, servers: Any = None, **changes: Any) -> AcpSession:
        """A session in `cwd` (its project root): a new one, or the file `changes` name;
        `servers` are the editor's MCP servers for it."""
        from rho_kernel import hookspecs
        from rho_kernel.frontend import ConfigError, Runtime, StartupError

        # A saved session is opened only by the file `_stored` found: never by a reference.
        chosen = {"session": None, "session_path": None, "continue_latest": False, **changes}
        options = dataclasses.replace(self.base, cwd=Path(cwd), root=Path(cwd), **chosen)
        try:
            runtime = await asyncio.to_thread(Runtime.build, options)
        except (StartupError, ConfigError, OSError, ValueError) as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        for problem in give_servers(runtime, servers):
            runtime.plugins.report(problem)
        if runtime.model_problem is not None:  # the session's prompts fail with it until then
            from rho_kernel import diagnostics

            diagnostics.warn(runtime.model_problem)
        runtime.plugins.call_each(hookspecs.rho_startup, runtime=runtime)
        if not self._sandbox_said and any(tool.runs_processes for tool in runtime.tools):
            # Said once, on stderr, how commands will run (probed in the background).
            self._sandbox_said = True
            self._later(asyncio.to_thread(runtime.confinement.announce))
        session = AcpSession(runtime, self.client)
        offer = FileOffer.of(self.handshake.get("params"))
        if offer.read or offer.write:
            loop = asyncio.get_running_loop()
            runtime.root.editor = ClientFiles(self.client, lambda: session.id, offer, loop)
        self.sessions[session.id] = session
        return session

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers)
        modes, options = await self._settings(session)
        self._later(session.announce_commands())
        return NewSessionResponse(session_id=session.id, modes=modes, config_options=options)

    def _later(self, work: Any) -> None:
        """Run `work` after the current answer (a notification that must follow it)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _settings(self, session: AcpSession) -> tuple[Any, list[Any]]:
        """The session's modes and config options (the models the provider lists, when it
        answers)."""
        runtime = session.runtime
        try:
            models, _ = await runtime.models()
        except Exception:  # a provider that cannot list its models offers the current one
            models = []
        return mode_state(runtime), config_options(runtime, [m for m, _ in models])

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in MODE_IDS:
            raise RequestError.invalid_params({"message": f"no mode {mode_id!r}: {MODE_IDS}"})
        session.runtime.permission_mode = mode_id  # type: ignore[assignment]
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        runtime = session.runtime
        if config_id == "mode" and value in MODE_IDS:
            runtime.permission_mode = value  # type: ignore[assignment]
        elif config_id == "model" and isinstance(value, str) and value:
            try:
                await runtime.set_model(value)
            except Exception as exc:  # an unknown model or provider: said, nothing changed
                raise RequestError.invalid_params({"message": str(exc)}) from None
        elif config_id == "reasoning_effort" and effort_value(value)[0]:
            runtime.set_reasoning_effort(effort_value(value)[1])
        else:
            raise RequestError.invalid_params({"message": f"no option {config_id}={value!r}"})
        _, options = await self._settings(session)
        return SetSessionConfigOptionResponse(config_options=options)

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> ForkSessionResponse:
        """A new session holding the source's active branch (rho's `forkSession`)."""
        source = self.sessions.get(session_id)
        opened = source is None
        if source is None:
            stored = await self._stored(cwd, session_id)
            source = self.sessions.get(stored.id)
            opened = source is None
            if source is None:
                source = await self._open(cwd, session_path=stored.path, ephemeral=False)
        try:
            fork = source.runtime.session.fork()
        finally:
            if opened:
                await self._close(source)
        session = await self._open(cwd, mcp_servers)
        del self.sessions[session.id]  # it continues in the fork, under the fork's id
        session.runtime.session.close()
        session.adopt(fork)
        self.sessions[session.id] = session
        modes, options = await self._settings(session)
        return ForkSessionResponse(session_id=session.id, modes=modes, config_options=options)

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        """Open a session again without replaying it."""
        session = self.sessions.get(session_id)
        if session is None:
            stored = await self._stored(cwd, session_id)
            session = self.sessions.get(stored.id)
            if session is None:
                session = await self._open(cwd, session_path=stored.path, ephemeral=False)
        modes, options = await self._settings(session)
        return ResumeSessionResponse(modes=modes, config_options=options)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        await self._close(self._session(session_id))
        return CloseSessionResponse()

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Open the session and replay its active branch as `session/update`s."""
        stored = await self._stored(cwd, session_id)
        if stored.id in self.sessions:
            raise RequestError.invalid_params({"message": f"session {stored.id!r} is open"})
        session = await self._open(cwd, mcp_servers, session_path=stored.path, ephemeral=False)
        for update in replay(session.runtime):
            await self.client.session_update(session_id=session.id, update=update)
        self._later(session.announce_commands())
        return LoadSessionResponse()

    async def _stored(self, cwd: str, session_id: object) -> StoredSession:
        """The saved session of the project at `cwd` that `session_id` names (its id, or
        its file's path); an invalid-params error saying why when it names none."""
        try:
            return await asyncio.to_thread(stored_session, cwd, session_id, self.base.home)
        except UnknownSession as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None

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
        session = self._session(session_id)
        return await session.prompt(prompt_content(prompt))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """rho's extensions (`_rho/steer`, `_rho/tree`, `_rho/branchTo`, `_rho/compact`)."""
        handler = EXTENSIONS.get(method)
        if handler is None:
            raise RequestError.method_not_found(f"_{method}")
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RequestError.invalid_params({"message": "sessionId: give the session's id"})
        return await handler(self._session(session_id), params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def _close(self, session: AcpSession) -> None:
        from rho_kernel import hookspecs

        self.sessions.pop(session.id, None)
        runtime = session.runtime
        runtime.abort()
        runtime.plugins.call_each(hookspecs.rho_shutdown, runtime=runtime)
        await runtime.aclose("client closed")

    async def close(self) -> None:
        """End every session (its file is closed as rho's server closes it)."""
        for session in list(self.sessions.values()):
            await self._close(session)


__all__ = ["RhoAgent"]
