"""The handlers of the core JSON-RPC methods (`rho_rpc.method_table` lists the methods)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel import SessionNotFound
from rho_kernel.frontend import AgentError, StartupError
from rho_kernel.rpc import (
    APPROVAL_NOT_PENDING,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    NO_RUNNING_PROMPT,
    RpcError,
)
from rho_rpc import render
from rho_rpc.followups import FOLLOW_UPS_KEY, FollowUps
from rho_rpc.peer import ApprovalMismatch, RememberRefused, RpcPeer
from rho_rpc.protocol.base import EmptyResult, NoParams
from rho_rpc.status_bar import draw_after_turn

if TYPE_CHECKING:
    from rho_kernel import CancelToken, ImagePart, Runtime
    from rho_rpc.pending_prompts import PendingPrompts
    from rho_rpc.protocol.models import (
        ListModelsResult,
        ListProvidersResult,
        SetModelParams,
        SetModelResult,
        SetReasoningEffortParams,
    )
    from rho_rpc.protocol.plugins import ListPluginsResult
    from rho_rpc.protocol.prompt import (
        AbortParams,
        ApprovalResponseParams,
        PromptParams,
        PromptResult,
    )
    from rho_rpc.protocol.sessions import (
        CompactParams,
        CompactResult,
        ListSessionsParams,
        NewSessionResult,
        ResumeSessionParams,
    )
    from rho_rpc.protocol.state import QueuedPrompt, SandboxInfo
    from rho_rpc.protocol.tools import ListToolsResult

#: Why a prompt read before the end of input is not run once it has ended.
INPUT_ENDED = (
    "rho is shutting down: the client's input ended before this prompt started, so it did not run"
)

# Each handler imports the wire models it builds, so that serving a method imports only its
# own group of them (see rho_rpc.method_table); the bases are shared by all.


def peer_of(runtime: Runtime) -> RpcPeer:
    """The connected client, put in the runtime's stash by the RPC host."""
    from rho_rpc.plugin import PEER_KEY

    peer = runtime.stash.get(PEER_KEY)
    if peer is None:
        raise RpcError(INTERNAL_ERROR, "no RPC client is connected to this runtime")
    return peer


def follow_ups_of(runtime: Runtime) -> FollowUps:
    """The client's queued prompts, put in the runtime's stash by the RPC host."""
    follow_ups = runtime.stash.get(FOLLOW_UPS_KEY)
    if follow_ups is None:
        raise RpcError(INTERNAL_ERROR, "no RPC client is connected to this runtime")
    return follow_ups


def _images(params: PromptParams) -> list[ImagePart]:
    """The prompt's images, checked (`INVALID_PARAMS` names the first that is wrong)."""
    if not params.images:
        return []
    from rho_kernel import ImageError, image_part

    images = []
    for index, image in enumerate(params.images):
        try:
            images.append(image_part(image.mediaType, image.data))
        except ImageError as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: images[{index}]: {exc}") from None
    return images


class CoreMethods:
    """One handler per core method, bound to a runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    # ── prompts and approvals ───────────────────────────────────────────────

    async def prompt(self, params: PromptParams) -> PromptResult:
        if not params.message.strip():
            raise RpcError(INVALID_PARAMS, "Invalid params: message must not be blank")
        if params.steer:
            if params.images:
                raise RpcError(INVALID_PARAMS, "Invalid params: images cannot steer a prompt")
            if params.queue:
                raise RpcError(
                    INVALID_PARAMS,
                    "Invalid params: steer and queue exclude each other: steer adds the "
                    "message to the running prompt, queue runs it after",
                )
            return self._steer(params.message)
        read = self._read_turn(params)
        turn_id, cancel = read if read is not None else (None, None)
        try:
            return await self._run_prompt(params, turn_id, cancel)
        finally:
            if turn_id is not None:  # a turn that never began takes no more steering
                self.runtime.steering.forget(turn_id)

    def _pending(self) -> PendingPrompts | None:
        """The prompts read and not started yet (see `rho_rpc.pending_prompts`)."""
        from rho_rpc.pending_prompts import PENDING_KEY

        return self.runtime.stash.get(PENDING_KEY)

    def _read_turn(self, params: PromptParams) -> tuple[str, CancelToken] | None:
        """The turn id and cancel token this prompt got when it was read."""
        pending = self._pending()
        return pending.start(params) if pending is not None else None

    async def _run_prompt(
        self, params: PromptParams, turn_id: str | None, cancel: CancelToken | None
    ) -> PromptResult:
        from rho_rpc.protocol.prompt import PromptResult, ProviderFailureInfo

        images = _images(params)
        peer = peer_of(self.runtime)
        if peer.input_closed:  # the client is gone: no turn starts for it
            raise RpcError(INTERNAL_ERROR, INPUT_ENDED)
        if params.queue:
            queued = follow_ups_of(self.runtime).add(params.message, images)
            return PromptResult(turnId=queued.turn_id, queued=True)
        try:
            # The client's gate and notifications come through rho-rpc's own hooks.
            result = await self.runtime.prompt(
                params.message, images=images, cancel=cancel, turn_id=turn_id
            )
        except AgentError as exc:
            failure = exc.failure
            if failure is None:
                return PromptResult(error=exc.message, turnId=exc.turn_id)
            info = ProviderFailureInfo.model_validate(render.provider_failure(failure))
            return PromptResult(error=exc.message, failure=info, turnId=exc.turn_id)
        except StartupError as exc:
            peer.notify("agent/error", {"error": str(exc)})
            return PromptResult(error=str(exc))
        finally:
            draw_after_turn(self.runtime)
        return PromptResult(reply=result.reply, reasoning=result.reasoning, turnId=result.turn_id)

    def _steer(self, message: str) -> PromptResult:
        from rho_rpc.protocol.prompt import PromptResult

        turn_id = self.runtime.steered_turn
        if not self.runtime.steer(message):
            raise RpcError(
                NO_RUNNING_PROMPT,
                "no prompt is running, so there is nothing to steer; send the message as a "
                "prompt (without steer)",
            )
        return PromptResult(turnId=turn_id)

    async def abort(self, params: AbortParams) -> EmptyResult:
        turn_id = params.turnId
        pending = self._pending()
        if turn_id is None:
            if not self.runtime.abort() and pending is not None:
                pending.cancel()  # a prompt read and not started yet runs, for abort too
        elif not follow_ups_of(self.runtime).cancel(turn_id):
            if pending is not None and pending.cancel(turn_id):
                return EmptyResult()
            if self.runtime.turn_id != turn_id:
                raise RpcError(
                    NO_RUNNING_PROMPT,
                    f"no prompt is running or queued as turnId {turn_id!r} (it may have "
                    "ended); nothing was cancelled",
                )
            self.runtime.abort()
        return EmptyResult()

    async def approval_response(self, params: ApprovalResponseParams) -> EmptyResult:
        remember = params.remember
        kept = (remember.scope, remember.rule) if remember is not None else None
        try:
            peer_of(self.runtime).answer(params.approvalId, params.approved, params.message, kept)
        except ApprovalMismatch as exc:
            raise RpcError(APPROVAL_NOT_PENDING, str(exc)) from None
        except RememberRefused as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        return EmptyResult()

    # ── sessions ────────────────────────────────────────────────────────────

    async def clear(self, _: NoParams) -> EmptyResult:
        try:
            self.runtime.session.clear()
        except Exception as exc:
            raise RpcError(INTERNAL_ERROR, f"clear failed: {exc}") from None
        return EmptyResult()

    async def new_session(self, _: NoParams) -> NewSessionResult:
        from rho_rpc.protocol.sessions import NewSessionResult

        try:
            session = self.runtime.new_session()
        except Exception as exc:
            raise RpcError(INTERNAL_ERROR, f"newSession failed: {exc}") from None
        return NewSessionResult(sessionId=session.id, path=str(session.path or ""))

    async def compact(self, params: CompactParams) -> CompactResult:
        from rho_kernel.frontend import UnknownStrategy
        from rho_rpc.protocol.sessions import CompactResult

        try:
            outcome = await self.runtime.compact(params.strategy)
        except UnknownStrategy as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        except Exception as exc:
            raise RpcError(INTERNAL_ERROR, f"compact failed: {exc}") from None
        return CompactResult(
            compacted=outcome.compacted,
            reason=outcome.reason or None,
            strategy=outcome.strategy or None,
            requested=outcome.requested,
            entriesCompacted=outcome.entries_compacted,
            tokensBefore=outcome.tokens_before,
            tokensAfter=outcome.tokens_after,
            summaryId=outcome.summary_id,
            previousLeafId=outcome.from_leaf,
        )

    async def list_sessions(self, params: ListSessionsParams) -> dict[str, Any]:
        from rho_rpc.protocol.sessions import ListSessionsResult, SessionEntry

        infos = await asyncio.to_thread(
            self.runtime.sessions, limit=params.limit + 1, offset=params.offset
        )
        more = len(infos) > params.limit
        result = ListSessionsResult(
            sessions=[
                SessionEntry(
                    path=str(info.path),
                    id=info.id,
                    mtimeSecs=info.mtime_secs,
                    sizeKb=info.size_kb,
                    entryCount=info.entry_count,
                    latest=params.offset == 0 and index == 0,
                )
                for index, info in enumerate(infos[: params.limit])
            ],
            nextOffset=params.offset + params.limit if more else None,
        )
        return result.model_dump(mode="json")  # with nextOffset: null at the end

    def _session_to_resume(self, params: ResumeSessionParams) -> Path:
        """The file `path` or `id` names (exactly one of them); -32602 otherwise."""
        if (params.path is None) == (params.id is None):
            raise RpcError(
                INVALID_PARAMS,
                "Invalid params: pass either path (the session's file) or id (as listSessions "
                "shows it)",
            )
        if params.path is not None:
            return Path(params.path).expanduser()
        try:
            return self.runtime.find_session(params.id or "").path
        except SessionNotFound as exc:
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: id: {exc}",
                [{"param": "id", "problem": str(exc)}],
            ) from None

    async def resume_session(self, params: ResumeSessionParams) -> dict[str, Any]:
        from rho_rpc.protocol.sessions import ResumeSessionResult

        path = self._session_to_resume(params)
        try:
            session = self.runtime.resume(path)
        except StartupError as exc:
            hint = ""
            if params.path is not None and not path.exists() and "/" not in params.path:
                hint = " (to resume a session by its id, pass id instead of path)"
            raise RpcError(INTERNAL_ERROR, f"{exc}{hint}") from None
        result = ResumeSessionResult(
            path=str(session.path or ""),
            sessionId=session.id,
            model=self.runtime.model or None,
            cwd=str(self.runtime.root.path),
            entryCount=session.entry_count,
        )
        return result.model_dump(mode="json")  # with model: null while none is chosen

    # ── state ───────────────────────────────────────────────────────────────

    async def get_state(self, _: NoParams) -> dict[str, Any]:
        from rho_rpc.plugin_state import plugin_state
        from rho_rpc.protocol.state import GetStateResult, ToolDefinitionsInfo

        runtime = self.runtime
        session = runtime.session
        state = GetStateResult(
            model=runtime.model or None,
            modelProblem=runtime.model_problem,
            provider=runtime.provider.name,
            cwd=str(runtime.root.path),
            messageCount=len(session.path_messages()),
            sessionId=session.id,
            sessionPath=str(session.path or ""),
            busy=runtime.busy,
            phase=runtime.phase,
            sandbox=await self._sandbox(),
            toolDefinitions=ToolDefinitionsInfo.model_validate(
                render.tool_definitions(runtime.tool_share())
            ),
            approvalMode=runtime.permission_mode,
            reasoningEffort=runtime.config.agent.reasoning_effort,
            queued=self._queued(),
            **plugin_state(runtime, GetStateResult.model_fields),
        )
        # `model` is null, not left out, while none is chosen.
        return {**state.model_dump(mode="json", exclude_none=True), "model": state.model}

    def _queued(self) -> list[QueuedPrompt]:
        from rho_rpc.protocol.state import QueuedPrompt

        follow_ups = self.runtime.stash.get(FOLLOW_UPS_KEY)
        queued = follow_ups.queued() if follow_ups is not None else []
        return [QueuedPrompt(turnId=item.turn_id, preview=item.preview) for item in queued]

    async def _sandbox(self) -> SandboxInfo:
        from rho_rpc.protocol.state import SandboxInfo

        status = await asyncio.to_thread(self.runtime.confinement.status)  # may probe, once
        return SandboxInfo.model_validate(render.sandbox_status(status))

    async def get_messages(self, _: NoParams) -> dict[str, Any]:
        # Plain dicts (a long session need not be validated again): the shape of
        # GetMessagesResult, which the OpenRPC document declares.
        messages = self.runtime.session.path_messages()
        return {"messages": [render.chat_message(message) for message in messages]}

    async def get_session_stats(self, _: NoParams) -> dict[str, Any]:
        # The figures are kept (made as the session loaded, extended since); the plain dict
        # is the shape of GetSessionStatsResult, which the OpenRPC document declares (no
        # validator is built for a first call to pay).
        runtime = self.runtime
        return render.session_stats(
            runtime.meter().stats(runtime.session),
            runtime.api_usage,
            runtime.fitted_view(),
            runtime.cache_hits.of(runtime.session.id),
        )

    async def list_tools(self, _: NoParams) -> ListToolsResult:
        from rho_rpc.protocol.tools import ListToolsResult, ToolInfo

        await self.runtime.startup_settled()  # tools a plugin is still loading
        tools = self.runtime.tools
        sandbox = await self._sandbox()
        return ListToolsResult(
            tools=[
                ToolInfo(
                    name=tool.name,
                    description=tool.description,
                    risk=str(tool.risk),  # type: ignore[arg-type]
                    parameters=tool.parameters,
                    plugin=tools.owner(tool.name),
                    runsProcesses=tool.runs_processes,
                    confined=tool.runs_processes and sandbox.mode == "confined",
                )
                for tool in tools
            ],
            sandbox=sandbox,
        )

    async def list_plugins(self, _: NoParams) -> ListPluginsResult:
        from rho_rpc.plugin_listing import plugin_listing

        return plugin_listing(self.runtime.plugins)

    # ── models and providers ────────────────────────────────────────────────

    async def set_model(self, params: SetModelParams) -> SetModelResult:
        from rho_rpc.protocol.models import SetModelResult

        try:
            provider = await self.runtime.set_model(params.model)
        except ValueError as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        stats = self.runtime.meter().stats(self.runtime.session)
        return SetModelResult(
            model=self.runtime.model,
            provider=provider.name,
            contextWindow=stats.context_window,
            estimatedUsed=stats.estimated_used,
            utilizationPercent=stats.utilization_percent,
        )

    async def set_reasoning_effort(self, params: SetReasoningEffortParams) -> dict[str, Any]:
        from rho_rpc.protocol.models import SetReasoningEffortResult

        self.runtime.set_reasoning_effort(params.effort)
        result = SetReasoningEffortResult(effort=self.runtime.config.agent.reasoning_effort)
        return result.model_dump(mode="json")  # with effort: null when none is sent

    async def list_models(self, _: NoParams) -> ListModelsResult:
        from rho_rpc.protocol.models import ListModelsResult, ModelEntry

        listed, errors = await self.runtime.models()
        return ListModelsResult(
            models=[ModelEntry(id=model_id, provider=name) for model_id, name in listed],
            errors=errors,
        )

    async def list_providers(self, _: NoParams) -> ListProvidersResult:
        from rho_rpc.protocol.models import ListProvidersResult, ProviderEntry

        runtime = self.runtime
        reachable = await runtime.reachability()
        return ListProvidersResult(
            providers=[
                ProviderEntry(
                    name=provider.name,
                    endpoint=provider.shown_endpoint,
                    api=provider.api,
                    isExternal=not provider.is_local,
                    reachable=ok,
                    active=provider is runtime.provider,
                )
                for provider, ok in zip(runtime.providers, reachable, strict=True)
            ]
        )


__all__ = ["INPUT_ENDED", "CoreMethods", "follow_ups_of", "peer_of"]
