"""The JSON-RPC wire types: every method's params and result, and every notification.

These pydantic models validate incoming params and are the single source of the OpenRPC
document (`rpc.discover`, `docs/openrpc.json`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Wire(BaseModel):
    """Base of every wire type; schemas are built on first use, keeping them off startup."""

    model_config = ConfigDict(defer_build=True)


class Params(Wire):
    """Base of method params: strict types, unknown members ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", defer_build=True)


class Result(Wire):
    """Base of method results."""


class NoParams(Params):
    """The method takes no params."""


class EmptyResult(Result):
    """An empty object: the request was accepted."""


# ── prompt / abort / approval ───────────────────────────────────────────────


class PromptParams(Params):
    """`prompt`: run a user message through the agent, or steer the running turn."""

    message: str = Field(min_length=1, description="The user's message (must not be empty).")
    steer: bool = Field(
        False,
        description="Steer the running prompt: answered at once with {}; the message becomes a "
        "user turn at the next tool-batch seam, or one more round if the model has just "
        "answered. Refused (-32002) when no prompt is running.",
    )


class PromptResult(Result):
    """`prompt` result: `reply` when the turn ended, `error` when it failed (see agent/error)."""

    reply: str | None = None
    error: str | None = None


class ApprovalResponseParams(Params):
    """`approvalResponse`: answer the pending `approval/request` named by `approvalId`."""

    approvalId: str = Field(
        description="The approvalId of the approval/request being answered. Required: a "
        "response without it, or naming an approval that is not pending (already answered, "
        "cancelled, or never asked), is an error and approves nothing."
    )
    approved: bool = Field(description="True runs the tool call; false denies it.")
    message: str | None = Field(
        None,
        description="With approved=false: redirect — the tool batch is abandoned and this text "
        "becomes a new user turn.",
    )


# ── state and messages ──────────────────────────────────────────────────────


class SandboxInfo(Wire):
    """How the commands rho runs for the model are confined."""

    mode: Literal["confined", "unconfined", "off", "refused"] = Field(
        description='"confined" (by `backend`), "unconfined" (no sandbox backend works here: '
        'see `problem` and `fix`), "off" ([sandbox] mode = "off") or "refused" (no backend '
        "works and [sandbox] require = true: commands do not run)."
    )
    backend: str | None = Field(None, description='The sandbox in use, e.g. "bubblewrap".')
    network: bool | list[str] = Field(
        False, description="Whether commands may use the network (or the hosts they may reach)."
    )
    writable: list[str] = Field(
        default_factory=list, description="Granted writable paths besides the project."
    )
    pendingWritable: list[str] = Field(
        default_factory=list,
        description="Configured writable paths not yet granted: the next command asks for "
        "approval, and approving it grants them for this project.",
    )
    problem: str | None = Field(None, description="Why commands are not confined.")
    fix: str | None = Field(None, description="What would confine them.")


class GetStateResult(Result):
    """`getState` result."""

    model: str
    provider: str
    cwd: str
    messageCount: int
    sessionId: str
    sessionPath: str = Field(description='The session file; "" for an in-memory session.')
    busy: bool = Field(description="Whether a prompt is running.")
    phase: str | None = Field(
        None, description="Phase of work of the current or last prompt (exploration, execution, …)."
    )
    sandbox: SandboxInfo = Field(description="How commands run for the model are confined.")


class GetMessagesResult(Result):
    """`getMessages` result: the messages on the current branch, oldest first."""

    messages: list[dict[str, Any]]


class NewSessionResult(Result):
    """`newSession` result."""

    sessionId: str
    path: str = Field(description='The new session file; "" for an in-memory session.')


# ── models and providers ────────────────────────────────────────────────────


class SetModelParams(Params):
    """`setModel`: switch model — a bare id (found on the provider that lists it) or `provider:id`."""

    model: str = Field(
        min_length=1, description='A model id, or "provider:model" to skip discovery.'
    )


class SetModelResult(Result):
    """`setModel` result: the new model and the context it lands in."""

    model: str
    provider: str
    contextWindow: int
    estimatedUsed: int
    utilizationPercent: float


class ModelEntry(Wire):
    """A model a provider serves."""

    id: str
    provider: str


class ListModelsResult(Result):
    """`listModels` result: every model of every configured provider."""

    models: list[ModelEntry]
    errors: list[str] = Field(default_factory=list, description="Providers whose listing failed.")


class ProviderEntry(Wire):
    """A configured provider."""

    name: str
    endpoint: str
    api: str
    isExternal: bool
    reachable: bool
    active: bool


class ListProvidersResult(Result):
    """`listProviders` result (reachability checked concurrently, a short timeout each)."""

    providers: list[ProviderEntry]


class RoleTokens(Wire):
    """Estimated tokens per message role."""

    system: int
    user: int
    assistant: int
    tool: int


class ResolutionTokens(Wire):
    """Estimated tokens per entry resolution."""

    full: int
    outlined: int
    summarized: int
    pinned: int


class PhaseTokens(Wire):
    """Estimated tokens per phase of work."""

    exploration: int
    execution: int
    verification: int
    conclusion: int
    unclassified: int


class ApiUsageTotals(Wire):
    """What this rho process spent on model requests."""

    totalInputTokens: int
    totalOutputTokens: int
    totalCachedTokens: int
    totalTokens: int
    totalCost: float
    requestCount: int


class GetSessionStatsResult(Result):
    """`getSessionStats` result: context usage estimates and API usage."""

    contextWindow: int
    completionReserve: int
    estimatedUsed: int
    estimatedRemaining: int
    utilizationPercent: float
    messageCount: int
    entryCount: int
    pathEntryCount: int
    compactedEntryCount: int
    compactionTokens: int
    roleTokens: RoleTokens
    resolutionTokens: ResolutionTokens
    phaseTokens: PhaseTokens
    apiUsage: ApiUsageTotals


# ── tools and plugins ───────────────────────────────────────────────────────


class ToolInfo(Wire):
    """A tool the model can call."""

    name: str
    description: str
    risk: Literal["read", "write", "destructive", "network"]
    parameters: dict[str, Any]
    plugin: str | None = Field(None, description="The plugin that contributed the tool.")
    runsProcesses: bool = Field(False, description="Whether the tool starts processes.")
    confined: bool = Field(
        False, description="Whether the processes it starts run in the OS sandbox."
    )


class ListToolsResult(Result):
    """`listTools` result."""

    tools: list[ToolInfo]
    sandbox: SandboxInfo = Field(description="How commands run for the model are confined.")


class PluginEntry(Wire):
    """A loaded plugin."""

    name: str
    version: str | None
    hooks: list[str]


class ListPluginsResult(Result):
    """`listPlugins` result."""

    plugins: list[PluginEntry]
    failed: list[dict[str, str]] = Field(
        default_factory=list, description="Plugins that failed to load: {name, error}."
    )


# ── sessions ────────────────────────────────────────────────────────────────


class SessionEntry(Wire):
    """A saved session of this project."""

    path: str
    id: str
    mtimeSecs: int
    sizeKb: int
    entryCount: int
    latest: bool = Field(description="The session `rho -c` would resume.")


class ListSessionsResult(Result):
    """`listSessions` result: the 10 most recent sessions, newest first."""

    sessions: list[SessionEntry]


class ResumeSessionParams(Params):
    """`resumeSession`: continue a saved session."""

    path: str = Field(min_length=1, description="Path of the session's .jsonl file.")


class ResumeSessionResult(Result):
    """`resumeSession` result."""

    path: str
    sessionId: str
    model: str
    cwd: str
    entryCount: int


# ── notifications (rho → client) ────────────────────────────────────────────


class ReadyParams(Wire):
    """`ready`: sent once, before anything else."""

    version: str
    model: str
    provider: str
    cwd: str
    sessionPath: str


class StateChangeParams(Wire):
    """`state/change`."""

    state: Literal["idle", "thinking", "awaiting_approval", "executing_tool"]


class DeltaParams(Wire):
    """`message/delta` and `reasoning/delta`: a piece of streamed text."""

    delta: str


class ToolCallParams(Wire):
    """`tool/call`: the model called a tool (arguments is the raw JSON string)."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    arguments: str


class ToolResultParams(Wire):
    """`tool/result`: a tool call's result as the model sees it."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    is_error: bool
    output: str


class ToolOutputParams(Wire):
    """`tool/output`: live output of a running call (redacted); the model gets only the
    final result."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    stream: str = Field(description='Which output: "stdout", "stderr" or a tool\'s own label.')
    text: str


class ToolDeniedParams(Wire):
    """`tool/denied`."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str


class ApprovalRequestParams(Wire):
    """`approval/request`: answer with `approvalResponse` carrying the same `approvalId`."""

    approvalId: str = Field(description="Names this request; the response must carry it back.")
    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    tool: str
    arguments: str = Field(
        description="Exactly the arguments that will run, as canonical JSON (after decoding and "
        "any rewrite by a plugin), not the model's raw text."
    )
    risk: Literal["read", "write", "destructive", "network"]


class RetryParams(Wire):
    """`agent/retry`: a model request failed with a retryable error and will be retried."""

    attempt: int = Field(description="This retry's number, from 1.")
    maxAttempts: int = Field(description="Retries allowed ([agent] retry_budget).")
    delayMs: int = Field(description="Milliseconds until the retry is sent.")
    reason: str = Field(description="The error, in words (names the provider or endpoint).")


class UsageTotals(Wire):
    """Token usage of a run."""

    inputTokens: int
    outputTokens: int
    cachedTokens: int
    totalTokens: int
    totalCost: float
    requestCount: int


class ToolOutcome(Wire):
    """How a tool call ended; `output` is present for non-success outcomes."""

    kind: Literal["success", "error", "denied", "blocked"]
    output: str | None = None


class ToolCallSummary(Wire):
    """One tool call of the run."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    arguments: str
    outcome: ToolOutcome
    durationMs: int | None = None


class AgentEndParams(Wire):
    """`agent/end`: the structured result of a finished prompt."""

    reply: str
    iterations: int
    usage: UsageTotals
    toolCalls: list[ToolCallSummary]
    durationMs: int
    finishReason: Literal[
        "stop",
        "max_iterations",
        "cancelled",
        "retry_budget_exhausted",
        "consecutive_empty_responses",
    ]


class IterationUsage(Wire):
    """Usage of one model request."""

    inputTokens: int
    outputTokens: int
    cachedTokens: int
    cost: float
    requestCount: int


class FittedRequest(Wire):
    """The request as sent after fitting the conversation into the prompt budget."""

    estimatedTokens: int = Field(description="Estimated tokens of its messages and tools.")
    promptBudget: int = Field(description="Context window minus completion reserve.")
    messageCount: int = Field(description="Messages it held.")
    outlined: int = Field(description="Session entries it showed as an outline.")
    summarized: int = Field(description="Session entries it showed as a summary.")
    evicted: int = Field(description="Session messages it left out.")


class ContextSnapshot(Wire):
    """The context window right after a model request."""

    estimatedUsed: int
    contextWindow: int
    completionReserve: int
    utilizationPercent: float
    fitted: FittedRequest | None = None


class UsageParams(Wire):
    """`usage`: sent after every model request of a prompt."""

    iteration: int
    usage: IterationUsage
    context: ContextSnapshot


class AgentErrorParams(Wire):
    """`agent/error`: the prompt failed."""

    error: str


class NoNotificationParams(Wire):
    """The notification carries no params."""


#: Notification name → params model, in the order a turn emits them.
NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "ready": ReadyParams,
    "agent/start": NoNotificationParams,
    "state/change": StateChangeParams,
    "message/delta": DeltaParams,
    "reasoning/delta": DeltaParams,
    "tool/call": ToolCallParams,
    "approval/request": ApprovalRequestParams,
    "tool/denied": ToolDeniedParams,
    "tool/output": ToolOutputParams,
    "tool/result": ToolResultParams,
    "usage": UsageParams,
    "agent/retry": RetryParams,
    "agent/end": AgentEndParams,
    "agent/error": AgentErrorParams,
}
