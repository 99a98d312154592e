"""The core JSON-RPC methods, contributed through `rho_register_rpc_methods` like any plugin's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_kernel.loop.result import AgentError
from rho_kernel.rpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError, RpcMethod
from rho_kernel.runtime import Runtime, StartupError
from rho_rpc.peer import RpcPeer
from rho_rpc.wire import (
    ApprovalResponseParams,
    EmptyResult,
    GetMessagesResult,
    GetSessionStatsResult,
    GetStateResult,
    ListModelsResult,
    ListPluginsResult,
    ListProvidersResult,
    ListSessionsResult,
    ListToolsResult,
    ModelEntry,
    NewSessionResult,
    NoParams,
    PluginEntry,
    PromptParams,
    PromptResult,
    ProviderEntry,
    ResumeSessionParams,
    ResumeSessionResult,
    SessionEntry,
    SetModelParams,
    SetModelResult,
    ToolInfo,
)


def peer_of(runtime: Runtime) -> RpcPeer:
    """The connected client, put in the runtime's stash by the RPC host."""
    peer = runtime.stash.get(RpcPeer)
    if not isinstance(peer, RpcPeer):
        raise RpcError(INTERNAL_ERROR, "no RPC client is connected to this runtime")
    return peer


def core_methods(runtime: Runtime) -> list[RpcMethod]:
    """prompt, abort, approvalResponse, clear, newSession, getState, getMessages, listTools,
    listPlugins, listSessions and resumeSession, bound to `runtime`."""

    async def prompt(params: PromptParams) -> PromptResult | EmptyResult:
        if not params.message.strip():
            raise RpcError(INVALID_PARAMS, "Invalid params: message must not be blank")
        if params.steer:
            runtime.steering.append(params.message)
            return EmptyResult()
        peer = peer_of(runtime)
        try:
            result = await runtime.prompt(params.message, observers=[peer], gate=peer)
        except AgentError as exc:
            return PromptResult(error=exc.message)
        except StartupError as exc:
            peer.notify("agent/error", {"error": str(exc)})
            return PromptResult(error=str(exc))
        return PromptResult(reply=result.reply)

    async def abort(_: NoParams) -> EmptyResult:
        runtime.abort()
        return EmptyResult()

    async def approval_response(params: ApprovalResponseParams) -> EmptyResult:
        peer_of(runtime).answer(params.approved, params.message)
        return EmptyResult()

    async def clear(_: NoParams) -> EmptyResult:
        try:
            runtime.session.clear()
        except Exception as exc:
            raise RpcError(INTERNAL_ERROR, f"clear failed: {exc}") from None
        return EmptyResult()

    async def new_session(_: NoParams) -> NewSessionResult:
        try:
            session = runtime.new_session()
        except Exception as exc:
            raise RpcError(INTERNAL_ERROR, f"newSession failed: {exc}") from None
        return NewSessionResult(sessionId=session.id, path=str(session.path or ""))

    async def get_state(_: NoParams) -> GetStateResult:
        session = runtime.session
        return GetStateResult(
            model=runtime.model,
            provider=runtime.provider.name,
            cwd=str(runtime.root.path),
            messageCount=len(session.path_messages()),
            sessionId=session.id,
            sessionPath=str(session.path or ""),
            busy=runtime.busy,
            phase=runtime.phase,
        )

    async def get_messages(_: NoParams) -> GetMessagesResult:
        return GetMessagesResult(messages=[m.to_record() for m in runtime.session.path_messages()])

    async def set_model(params: SetModelParams) -> SetModelResult:
        try:
            provider = await runtime.set_model(params.model)
        except ValueError as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        snapshot = runtime.meter().snapshot(runtime.session)
        return SetModelResult(
            model=runtime.model,
            provider=provider.name,
            contextWindow=snapshot["contextWindow"],
            estimatedUsed=snapshot["estimatedUsed"],
            utilizationPercent=snapshot["utilizationPercent"],
        )

    async def list_models(_: NoParams) -> ListModelsResult:
        listed, errors = await runtime.models()
        return ListModelsResult(
            models=[ModelEntry(id=model_id, provider=name) for model_id, name in listed],
            errors=errors,
        )

    async def list_providers(_: NoParams) -> ListProvidersResult:
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

    async def get_session_stats(_: NoParams) -> dict[str, Any]:
        stats = runtime.meter().stats(runtime.session).to_wire()
        stats["apiUsage"] = runtime.api_usage.to_wire()
        return GetSessionStatsResult.model_validate(stats).model_dump(mode="json")

    async def list_tools(_: NoParams) -> ListToolsResult:
        return ListToolsResult(
            tools=[
                ToolInfo(
                    name=tool.name,
                    description=tool.description,
                    risk=str(tool.risk),  # type: ignore[arg-type]
                    parameters=tool.parameters,
                    plugin=runtime.tools.owner(tool.name),
                )
                for tool in runtime.tools
            ]
        )

    async def list_plugins(_: NoParams) -> ListPluginsResult:
        return ListPluginsResult(
            plugins=[
                PluginEntry(name=info.name, version=info.version, hooks=info.hooks)
                for info in runtime.plugins.plugins()
            ],
            failed=[{"name": name, "error": error} for name, error in runtime.plugins.failures],
        )

    async def list_sessions(_: NoParams) -> ListSessionsResult:
        infos = runtime.sessions(limit=10)
        return ListSessionsResult(
            sessions=[
                SessionEntry(
                    path=str(info.path),
                    id=info.id,
                    mtimeSecs=info.mtime_secs,
                    sizeKb=info.size_kb,
                    entryCount=info.entry_count,
                    latest=index == 0,
                )
                for index, info in enumerate(infos)
            ]
        )

    async def resume_session(params: ResumeSessionParams) -> ResumeSessionResult:
        try:
            session = runtime.resume(Path(params.path).expanduser())
        except StartupError as exc:
            raise RpcError(INTERNAL_ERROR, str(exc)) from None
        return ResumeSessionResult(
            path=str(session.path or ""),
            sessionId=session.id,
            model=runtime.model,
            cwd=str(runtime.root.path),
            entryCount=session.entry_count,
        )

    def steering(raw: dict[str, object]) -> bool:
        return raw.get("steer") is True

    return [
        RpcMethod(
            "prompt",
            prompt,
            PromptParams,
            PromptResult,
            "Run a user message through the agent (or steer the running turn).",
            steering,
        ),
        RpcMethod(
            "abort",
            abort,
            NoParams,
            EmptyResult,
            "Cancel the running prompt, including a model request in flight.",
            True,
        ),
        RpcMethod(
            "approvalResponse",
            approval_response,
            ApprovalResponseParams,
            EmptyResult,
            "Answer the pending approval/request (outside a flow: a no-op).",
            True,
        ),
        RpcMethod(
            "clear",
            clear,
            NoParams,
            EmptyResult,
            "Branch back to the system message; the old branch stays on disk.",
        ),
        RpcMethod("newSession", new_session, NoParams, NewSessionResult, "Start a new session."),
        RpcMethod(
            "getState",
            get_state,
            NoParams,
            GetStateResult,
            "Model, provider, project root and message count.",
            True,
        ),
        RpcMethod(
            "getMessages",
            get_messages,
            NoParams,
            GetMessagesResult,
            "The messages on the current branch.",
            True,
        ),
        RpcMethod(
            "listTools",
            list_tools,
            NoParams,
            ListToolsResult,
            "The tools the model can call.",
            True,
        ),
        RpcMethod(
            "listPlugins",
            list_plugins,
            NoParams,
            ListPluginsResult,
            "Loaded plugins with versions and hooks, and the ones that failed.",
            True,
        ),
        RpcMethod(
            "listSessions",
            list_sessions,
            NoParams,
            ListSessionsResult,
            "The 10 most recent sessions of this project.",
            True,
        ),
        RpcMethod(
            "setModel",
            set_model,
            SetModelParams,
            SetModelResult,
            "Switch model (bare id, found on the provider that lists it, or provider:id).",
        ),
        RpcMethod(
            "listModels",
            list_models,
            NoParams,
            ListModelsResult,
            "Every model of every configured provider.",
            True,
        ),
        RpcMethod(
            "listProviders",
            list_providers,
            NoParams,
            ListProvidersResult,
            "Configured providers: active, external, reachable.",
            True,
        ),
        RpcMethod(
            "getSessionStats",
            get_session_stats,
            NoParams,
            GetSessionStatsResult,
            "Context usage estimates by role, resolution and phase, and API usage.",
            True,
        ),
        RpcMethod(
            "resumeSession",
            resume_session,
            ResumeSessionParams,
            ResumeSessionResult,
            "Continue a saved session.",
        ),
    ]


__all__ = ["core_methods", "peer_of"]
