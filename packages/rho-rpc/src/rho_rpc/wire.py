"""The JSON-RPC wire types: every method's params and result, and every notification.

These pydantic models validate incoming params and are the single source of the OpenRPC
document (`rpc.discover`, `docs/openrpc.json`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Wire(BaseModel):
    """Base of every wire type; schemas are built on first use, keeping them off startup.

    Every object rho sends holds exactly the members its type declares (`extra="forbid"`,
    so the OpenRPC document says `additionalProperties: false`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")


class Params(Wire):
    """Base of method params: strict types; a member the method does not declare is
    refused (-32602), by the server for every method (`rho_rpc.params_check`)."""

    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)


class Result(Wire):
    """Base of method results."""


class NoParams(Params):
    """The method takes no params."""


_TURN_ID = (
    "Names the prompt's turn (`turn_` and 12 hex digits): agent/start, every event of the "
    "turn, agent/end or agent/error, and the prompt's response carry the same turnId."
)


class EmptyResult(Result):
    """An empty object: the request was accepted."""


# ── prompt / abort / approval ───────────────────────────────────────────────


class PromptParams(Params):
    """`prompt`: run a user message through the agent, or steer the running turn."""

    message: str = Field(min_length=1, description="The user's message (must not be empty).")
    steer: bool = Field(
        False,
        description="Steer the running prompt: answered at once with {turnId} (the turn it "
        "steers); the message becomes a "
        "user turn at the next tool-batch seam, or one more round if the model has just "
        "answered. Refused (-32002) when no prompt is running.",
    )


class ProviderFailureInfo(Wire):
    """Why the model could not be reached or refused the request (the one shape of every
    provider failure: a refused connection, an unknown host, a TLS error, a timeout, an error
    status, a malformed stream, a retry budget used up)."""

    kind: str = Field(
        description='"connect" (no connection), "http" (an error status), "timeout" (no '
        'answer in time), "stream" (an error in or a break of the stream) or "decode" (a '
        "body or stream rho cannot read); a provider plugin may use another word."
    )
    reason: str | None = Field(
        None,
        description='For "connect": "refused", "dns" (the host name does not exist), '
        '"dns_temporary", "tls", "timeout", "unreachable", "closed" (dropped before a '
        'response) or "invalid_url".',
    )
    provider: str = Field(description="The provider's name.")
    endpoint: str = Field(description="The endpoint URL, credentials masked.")
    status: int | None = Field(None, description="The HTTP status, when one came.")
    attempts: int = Field(description="Requests sent: 1 plus the retries.")
    retryable: bool = Field(description="Whether sending the prompt again later may work.")
    hint: str = Field(
        description="What to do, fitting how the provider was chosen (--endpoint, a "
        "[[providers]] entry or rho's default endpoint)."
    )


class PromptResult(Result):
    """`prompt` result: `reply` when the turn ended, `error` when it failed (see agent/error);
    a steering prompt is answered at once with only the `turnId` of the turn it steers."""

    reply: str | None = Field(
        None, description="The assistant's final text, as streamed in message/delta and stored."
    )
    reasoning: str | None = Field(
        None,
        description="The reasoning behind that reply, with [agent] show_reasoning = true and "
        "when the model sent some.",
    )
    error: str | None = None
    failure: ProviderFailureInfo | None = Field(
        None,
        description="With `error`, when the model could not be reached or refused the request.",
    )
    turnId: str | None = Field(
        None, description=_TURN_ID + " Absent only when the prompt failed before its turn began."
    )


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


class PackToolTokens(Wire):
    """The tool definitions one plugin contributes."""

    plugin: str = Field(description="The plugin (its registered name).")
    tokens: int = Field(description="Estimated tokens of its tool definitions.")
    tools: int = Field(description="How many tools it contributes.")


class ToolDefinitionsInfo(Wire):
    """How much of the prompt budget the tool definitions take (sent with every request)."""

    tokens: int = Field(
        description="Estimated tokens of every tool definition (at the model's calibrated "
        "bytes per token, as fitting counts them)."
    )
    promptBudget: int = Field(description="Context window minus completion reserve.")
    overHalf: bool = Field(description="Whether they alone take more than half of it.")
    packs: list[PackToolTokens] = Field(description="Per contributing plugin, biggest first.")
    warning: str | None = Field(
        None,
        description="When overHalf: the warning rho also gives on stderr (once), naming the "
        "biggest packs.",
    )


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
    toolDefinitions: ToolDefinitionsInfo = Field(
        description="How much of the prompt budget the tool definitions take."
    )


class MessageFunction(Wire):
    """The function a tool call names, with its arguments as the model wrote them."""

    name: str
    arguments: str = Field(description="The arguments: a JSON string, as the model sent it.")


class MessageToolCall(Wire):
    """One tool call of an assistant message."""

    id: str
    type: Literal["function"]
    function: MessageFunction


class MessageText(Wire):
    """A text block of a message whose content is a list (as some session files hold it)."""

    type: Literal["text"]
    text: str


class FullOutput(Wire):
    """The whole result of a tool call whose result was cut to fit the context window."""

    original_size: int = Field(description="The size of the whole output, in bytes.")
    content: str


class MessageDetails(Wire):
    """What a tool message keeps besides the result the model sees."""

    FullOutput: FullOutput


class ChatMessage(Wire):
    """A message of the conversation (the Chat Completions shape, with rho's own fields)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[MessageText]
    tool_calls: list[MessageToolCall] | None = Field(
        None, description="An assistant message's tool calls."
    )
    finish_reason: Literal["stop", "tool_calls", "length", "content_filter"] | None = Field(
        None, description="Why an assistant message ended."
    )
    tool_call_id: str | None = Field(None, description="The call a tool message answers.")
    is_error: bool | None = Field(None, description="On a tool message: the call failed.")
    outline: str | None = Field(
        None,
        description="On a tool message: the call and its result in one line, sent instead of "
        "the result when older turns are shortened.",
    )
    details: MessageDetails | None = Field(
        None, description="On a tool message whose result was cut to fit: the whole text."
    )


class GetMessagesResult(Result):
    """`getMessages` result: the messages on the current branch, oldest first."""

    messages: list[ChatMessage]


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
    """What this rho process spent on model requests (LLM compactions' included), and the
    part of it spent on LLM compactions."""

    totalInputTokens: int
    totalOutputTokens: int
    totalCachedTokens: int
    totalTokens: int
    totalCost: float
    requestCount: int
    compactionInputTokens: int = Field(description="Input tokens of LLM compaction requests.")
    compactionOutputTokens: int = Field(description="Output tokens of LLM compaction requests.")
    compactionCost: float = Field(description="Cost of LLM compaction requests.")
    compactionRequestCount: int = Field(description="LLM compaction requests made.")


class FittedView(Wire):
    """The current path as the model receives it: fitted into the prompt budget."""

    estimatedTokens: int = Field(
        description="Estimated tokens of its messages and the tool definitions (at the "
        "model's calibrated bytes per token)."
    )
    promptBudget: int = Field(description="Context window minus completion reserve.")
    utilizationPercent: float = Field(description="estimatedTokens as a share of promptBudget.")
    messageCount: int = Field(description="Messages it holds.")
    outlined: int = Field(description="Session entries it shows as an outline.")
    summarized: int = Field(description="Session entries it shows as a summary.")
    evicted: int = Field(description="Session messages it leaves out.")


class GetSessionStatsResult(Result):
    """`getSessionStats` result: context usage estimates and API usage.

    The top-level estimates measure the session's raw path (every entry of it, at its
    resolution); `fitted` is what the model receives of it."""

    contextWindow: int
    completionReserve: int
    estimatedUsed: int = Field(
        description="Estimated tokens of the raw path's messages and the tool definitions."
    )
    estimatedRemaining: int
    utilizationPercent: float = Field(
        description="estimatedUsed (the raw path) as a share of the prompt budget."
    )
    messageCount: int
    entryCount: int
    pathEntryCount: int
    compactedEntryCount: int = Field(
        description="Entries of the current path folded into a compaction."
    )
    compactionTokens: int = Field(
        description="Estimated tokens of the compaction and branch summaries on the path."
    )
    compactionCount: int = Field(description="Compaction entries on the current path.")
    toolSchemaTokens: int = Field(
        description="Estimated tokens of the tool definitions sent with every request "
        "(included in estimatedUsed)."
    )
    roleTokens: RoleTokens
    resolutionTokens: ResolutionTokens
    phaseTokens: PhaseTokens
    apiUsage: ApiUsageTotals
    fitted: FittedView | None = Field(
        description="The path as the model receives it (fitted into the prompt budget, as the "
        "next request would be); null when even its parts that are never shortened do not fit."
    )


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

    name: str = Field(description="The name it is registered under (its entry-point name).")
    version: str | None = Field(description="The version of its distribution, when known.")
    hooks: list[str] = Field(description="The hooks it implements.")
    distribution: str | None = Field(
        None, description="The installed package that provides it (null when unknown)."
    )
    tools: list[str] = Field(
        default_factory=list, description="The tools it contributes (that rho kept)."
    )
    rpcMethods: list[str] = Field(
        default_factory=list, description="The JSON-RPC methods it contributes (that rho kept)."
    )


class FailedPlugin(Wire):
    """A plugin that could not be loaded."""

    name: str = Field(description="Its entry-point name.")
    distribution: str | None = Field(
        None, description="The installed package that provides it (null when unknown)."
    )
    version: str | None = Field(None, description="The version of that package.")
    error: str = Field(description="Why it was skipped.")


class ListPluginsResult(Result):
    """`listPlugins` result."""

    plugins: list[PluginEntry]
    failed: list[FailedPlugin] = Field(
        default_factory=list, description="Plugins that failed to load."
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


class ListSessionsParams(Params):
    """`listSessions`: a page of the project's sessions, most recently used first."""

    limit: int = Field(10, ge=1, le=500, description="The most sessions in the page (≤ 500).")
    offset: int = Field(0, ge=0, description="How many of the most recent sessions to pass.")


class ListSessionsResult(Result):
    """`listSessions` result: a page of the project's sessions, most recently used first."""

    sessions: list[SessionEntry]
    nextOffset: int | None = Field(
        description="The offset of the next page; null when this page is the last."
    )


class ResumeSessionParams(Params):
    """`resumeSession`: continue a saved session, named by its file or by its id."""

    path: str | None = Field(
        None, min_length=1, description="Path of the session's .jsonl file (or pass `id`)."
    )
    id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The session's id as listSessions shows it, or a prefix of it that no "
        "other session of this project shares (or pass `path`).",
    )


class ResumeSessionResult(Result):
    """`resumeSession` result."""

    path: str
    sessionId: str
    model: str
    cwd: str
    entryCount: int


class CompactParams(Params):
    """`compact`: fold every turn of the current branch but the last into a summary."""

    strategy: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="The compaction strategy by name (default: [agent] compaction_mode).",
    )


class CompactResult(Result):
    """`compact` result. When `compacted` is false nothing was written and `reason` says why."""

    compacted: bool
    reason: str | None = None
    strategy: str | None = Field(
        None, description='The strategy whose summary was written ("mechanical" after a fallback).'
    )
    requested: str = Field(description="The strategy that was asked for.")
    entriesCompacted: int = 0
    tokensBefore: int = 0
    tokensAfter: int = 0
    summaryId: str | None = Field(None, description="The new Compaction entry.")
    previousLeafId: str | None = Field(
        None, description="The leaf of the branch that was compacted; it stays in the session."
    )


# ── the session tree ────────────────────────────────────────────────────────


class GetTreeParams(Params):
    """`getTree`: a page of the session tree, entries in the order they were appended."""

    offset: int = Field(0, ge=0, description="Index of the first entry of the page.")
    limit: int = Field(200, ge=1, le=500, description="The most entries in the page (≤ 500).")


class TreeNodeInfo(Wire):
    """One entry of the session tree."""

    id: str
    parentId: str | None = Field(
        description="The parent entry; null for a root (an unreadable entry in between is "
        "passed over, and an entry whose parent is missing is a root)."
    )
    kind: Literal[
        "message",
        "compaction",
        "branchSummary",
        "modelChange",
        "label",
        "sessionInfo",
        "leafMoved",
        "custom",
        "sessionEnded",
        "customMessage",
        "unknown",
    ]
    role: Literal["system", "user", "assistant", "tool"] | None = Field(
        description="The message role, for a message entry."
    )
    preview: str = Field(description="One line, at most 120 characters.")
    resolution: Literal[
        "full", "outlined", "summarized", "pinned", "compacted", "attached", "unknown"
    ]
    label: str | None = Field(description="The entry's label (setLabel), if any.")
    timestampSecs: int = Field(description="When the entry was appended (Unix seconds).")
    onPath: bool = Field(description="Whether the entry is on the path from a root to the leaf.")


class GetTreeResult(Result):
    """`getTree` result."""

    sessionId: str
    leafId: str | None = Field(description="The entry the conversation continues from.")
    total: int = Field(description="Entries in the whole tree.")
    offset: int
    nextOffset: int | None = Field(description="The offset of the next page; null at the end.")
    entries: list[TreeNodeInfo]


class BranchToParams(Params):
    """`branchTo`: continue the conversation from an earlier entry."""

    entryId: str = Field(min_length=1, description="The entry to continue from (getTree).")
    summarize: bool = Field(
        False,
        description="Record a summary of the branch left behind, as a BranchSummary entry "
        "after the target that the model sees.",
    )
    summary: str | None = Field(
        None,
        max_length=4000,
        description="A note of the client's own to keep in that summary (implies summarize).",
    )


class BranchToResult(Result):
    """`branchTo` result."""

    leafId: str = Field(
        description="The new leaf: the target, the last failed result rho added for its "
        "unanswered tool calls, or the summary entry."
    )
    summaryId: str | None = Field(description="The BranchSummary entry, when one was written.")
    abandonedCount: int = Field(
        description="Entries of the old path that are not on the new one (they stay in the tree)."
    )
    closedCalls: int = Field(
        description="Tool calls on the new path that had no result and got a failed one "
        "(`Tool call cancelled.`), so the next request is valid."
    )


class ForkSessionParams(Params):
    """`forkSession`: continue in a new session that starts as a copy of a path."""

    entryId: str | None = Field(
        None, min_length=1, description="The last entry to copy; the leaf when omitted."
    )


class ForkSessionResult(Result):
    """`forkSession` result: rho now works in the fork."""

    sessionId: str
    path: str = Field(description='The fork\'s session file; "" for an in-memory session.')
    parentSession: str = Field(
        description="What the fork's header names as its parent: the parent's session file, "
        "or its id for an in-memory session."
    )
    entryCount: int
    leafId: str | None
    closedCalls: int = Field(
        description="Tool calls of the copied path that had no result and got a failed one "
        "in the fork (`Tool call cancelled.`), so the next request is valid."
    )


class SetLabelParams(Params):
    """`setLabel`: label (bookmark) an entry, or remove its label."""

    entryId: str = Field(min_length=1, description="The entry to label.")
    label: str | None = Field(
        max_length=200,
        description="The label: one line of at most 200 characters, without control "
        "characters. null or blank removes it. Required, so that a misspelt member cannot "
        "remove a label.",
    )


class SetLabelResult(Result):
    """`setLabel` result."""

    entryId: str
    label: str | None


# ── notifications (rho → client) ────────────────────────────────────────────


class ReadyParams(Wire):
    """`ready`: sent once, before anything else."""

    version: str
    model: str
    provider: str
    cwd: str
    sessionPath: str


class TurnEvent(Wire):
    """An event of a prompt's turn."""

    turnId: str = Field(description=_TURN_ID)


class AgentStartParams(TurnEvent):
    """`agent/start`: a prompt's turn began."""


class StateChangeParams(TurnEvent):
    """`state/change`."""

    state: Literal["idle", "thinking", "awaiting_approval", "executing_tool"]


class DeltaParams(TurnEvent):
    """`message/delta` and `reasoning/delta`: a piece of streamed text."""

    delta: str


class ToolCallParams(TurnEvent):
    """`tool/call`: the model called a tool (arguments is the raw JSON string)."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    arguments: str


class ToolResultParams(TurnEvent):
    """`tool/result`: a tool call's result as the model sees it."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str
    is_error: bool
    output: str


class ToolOutputParams(TurnEvent):
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


class ToolDeniedParams(TurnEvent):
    """`tool/denied`."""

    callId: str = Field(
        description="The tool call's id (the model's, or one rho generated when the model sent "
        "none); the same in tool/call, approval/request, tool/denied, tool/result, agent/end "
        "and the session's tool message."
    )
    name: str


class ApprovalRequestParams(TurnEvent):
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
    sandbox: SandboxInfo | None = Field(
        None,
        description="For a tool that starts processes: whether the command will run confined, "
        "and the writable paths approving it grants (pendingWritable).",
    )


class RetryParams(TurnEvent):
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

    kind: Literal["success", "error", "denied", "blocked", "cancelled"]
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


class AgentEndParams(TurnEvent):
    """`agent/end`: the structured result of a finished prompt."""

    reply: str = Field(
        description="The assistant's final text, as streamed in message/delta and stored."
    )
    reasoning: str | None = Field(
        None,
        description="The reasoning behind that reply, with [agent] show_reasoning = true and "
        "when the model sent some.",
    )
    iterations: int
    usage: UsageTotals
    toolCalls: list[ToolCallSummary]
    durationMs: int
    finishReason: Literal[
        "stop",
        "max_iterations",
        "cancelled",
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
    """`usage`: sent after every model request of a prompt, and after the model request of an
    LLM compaction (also one that `compact` started)."""

    iteration: int = Field(
        description="The prompt's iteration the request belongs to; 0 for a compaction that "
        "`compact` started outside a prompt."
    )
    kind: Literal["turn", "compaction"] = Field(
        description='"compaction" for the request an LLM compaction strategy made to summarize '
        'turns, "turn" for the conversation\'s own requests; both count in every total.'
    )
    usage: IterationUsage
    context: ContextSnapshot
    turnId: str | None = Field(
        None, description=_TURN_ID + " Absent for a compaction `compact` started."
    )


class ContextCompactedParams(Wire):
    """`context/compacted`: older turns were folded into a summary."""

    trigger: Literal["auto", "truncated", "manual"] = Field(
        description='"auto": during a prompt, the context reached [agent] '
        'auto_compact_threshold; "truncated": a reply was cut off at the output token limit '
        'and older turns were compacted to let it continue; "manual": the compact method.'
    )
    strategy: str = Field(
        description='The strategy whose summary was written ("mechanical" after a fallback).'
    )
    requested: str = Field(description="The strategy that was asked for.")
    entriesCompacted: int = Field(description="Session entries folded into the summary.")
    tokensBefore: int = Field(description="Estimated tokens of the path before.")
    tokensAfter: int = Field(description="Estimated tokens of the path after.")
    summaryId: str | None = Field(None, description="The new Compaction entry.")
    turnId: str | None = Field(
        None, description=_TURN_ID + " Absent for a compaction the `compact` method started."
    )


class AgentErrorParams(Wire):
    """`agent/error`: the prompt failed."""

    error: str = Field(description="What happened and what to do, in words.")
    failure: ProviderFailureInfo | None = Field(
        None, description="When the model could not be reached or refused the request."
    )
    turnId: str | None = Field(
        None, description=_TURN_ID + " Absent only when the prompt failed before its turn began."
    )


#: Notification name → params model, in the order a turn emits them.
NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "ready": ReadyParams,
    "agent/start": AgentStartParams,
    "state/change": StateChangeParams,
    "message/delta": DeltaParams,
    "reasoning/delta": DeltaParams,
    "tool/call": ToolCallParams,
    "approval/request": ApprovalRequestParams,
    "tool/denied": ToolDeniedParams,
    "tool/output": ToolOutputParams,
    "tool/result": ToolResultParams,
    "usage": UsageParams,
    "context/compacted": ContextCompactedParams,
    "agent/retry": RetryParams,
    "agent/end": AgentEndParams,
    "agent/error": AgentErrorParams,
}
