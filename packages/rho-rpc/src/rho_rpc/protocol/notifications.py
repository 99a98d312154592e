"""Every notification rho sends (rho → client), and `NOTIFICATIONS`, their params by name."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rho_rpc.protocol import base
from rho_rpc.protocol.base import TURN_ID, Wire
from rho_rpc.protocol.messages import MessageDetails
from rho_rpc.protocol.prompt import ProviderFailureInfo
from rho_rpc.protocol.state import SandboxInfo

CALL_ID = (
    "The tool call's id (the model's, or one rho generated when the model sent none); the "
    "same in tool/call, approval/request, tool/denied, tool/result, agent/end and the "
    "session's tool message."
)
"""The description of every `callId`."""


class ReadyParams(Wire):
    """`ready`: sent once, before anything else."""

    version: str = Field(description="rho's version, as `rho --version` says it.")
    model: str | None = Field(description="The model prompts go to; " + base.NO_MODEL)
    modelProblem: str | None = Field(None, description=base.MODEL_PROBLEM)
    provider: str
    cwd: str
    sessionPath: str


class TurnEvent(Wire):
    """An event of a prompt's turn."""

    turnId: str = Field(description=TURN_ID)


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

    callId: str = Field(description=CALL_ID)
    name: str
    arguments: str


class ToolResultParams(TurnEvent):
    """`tool/result`: a tool call's result as the model sees it."""

    callId: str = Field(description=CALL_ID)
    name: str
    is_error: bool
    output: str
    details: MessageDetails | None = Field(
        None,
        description="Only for a result cut to fit the context window (`output` keeps its "
        "beginning, or its beginning and end, and says what was left out): the whole "
        "result, redacted, as the session keeps it.",
    )


class ToolOutputParams(TurnEvent):
    """`tool/output`: live output of a running call (redacted); the model gets only the
    final result."""

    callId: str = Field(description=CALL_ID)
    name: str
    stream: str = Field(description='Which output: "stdout", "stderr" or a tool\'s own label.')
    text: str


class ToolDeniedParams(TurnEvent):
    """`tool/denied`."""

    callId: str = Field(description=CALL_ID)
    name: str


class SuggestedRuleInfo(Wire):
    """A rule an approval may remember, and where it would be kept."""

    scope: Literal["session", "project"] = Field(
        description='"session": kept in the session (a resumed session keeps it); "project": '
        "kept for this project in a file of the user's under ~/.rho, never in the repository."
    )
    rule: str = Field(
        description='The rule, e.g. "run_command(cargo test:*)" or "edit(src/**)" (every file '
        "edit in src/, whichever tool makes it)."
    )
    label: str = Field(
        description='What the rule covers, in words to show a person: "edits to src/a.py", '
        '"edits in src/", "edits in this project", "the command cargo test --all", "commands '
        'starting with cargo test", "memory calls" (control and bidi characters escaped); '
        'with its scope, a choice reads "Allow edits in src/ for this session" or "Always '
        'allow edits in src/".'
    )


class EscalationInfo(Wire):
    """What a call asks to leave the sandbox for, once."""

    sandbox: Literal["network", "unconfined"] = Field(
        description='"network": this one command gets network access; "unconfined": it runs '
        "without the OS sandbox at all."
    )
    justification: str = Field(description="Why, in the model's words.")


class ToolApprovedParams(TurnEvent):
    """`tool/approved`: a call runs without asking because an approval rule (or a plugin's
    permission, such as a hook's allow) allows it, where the approval policy would have
    asked (no `approval/request` is sent for it)."""

    callId: str = Field(description=CALL_ID)
    name: str
    approvedBy: str = Field(
        description='The rule, as written: "run_command(cargo test:*)" (a plugin\'s reason, '
        'for a plugin\'s permission: "PreToolUse hook: …").'
    )
    source: str = Field(
        description='Where the rule was given: "--allow" or "[approval] allow"; "plugin NAME" '
        "for a plugin's permission."
    )


class ApprovalRequestParams(TurnEvent):
    """`approval/request`: answer with `approvalResponse` carrying the same `approvalId`."""

    approvalId: str = Field(description="Names this request; the response must carry it back.")
    callId: str = Field(description=CALL_ID)
    tool: str
    arguments: str = Field(
        description="Exactly the arguments that will run, as canonical JSON (after decoding and "
        "any rewrite by a plugin), not the model's raw text."
    )
    risk: Literal["read", "write", "destructive", "network"]
    preview: str | None = Field(
        None,
        description="For a file change (write_file, edit_file): the unified diff of exactly "
        "what will be written, redacted and bounded. Approved, it is written only if the file "
        "is still as it was when planned; otherwise rho plans again and sends a new request.",
    )
    workingDirectory: str | None = Field(
        None,
        description="For a command (run_command): the directory it starts in, an absolute "
        "path (its cwd argument under the project root; the root by default).",
    )
    reason: str | None = Field(
        None,
        description="Why a plugin asks about this call (a hook's reason, say), to show with "
        "the question.",
    )
    escalation: EscalationInfo | None = Field(
        None,
        description="Present when the call asks to leave the sandbox for this one call: such a "
        "call always asks, whatever the mode or the rules, and offers no rule to remember.",
    )
    suggestedRules: list[SuggestedRuleInfo] = Field(
        default_factory=list,
        description="Rules this approval may remember (approvalResponse.remember names one): "
        "the session's, narrowest first, then the same rules for the project. For "
        "a file edit this file, this folder and every edit in the project (edit(…) rules, "
        "which cover write_file, edit_file and any tool that writes a path); for a command "
        "exactly it, and its prefix when the command is known to run nothing else; for "
        "another tool the tool. Never wider than the project. Empty when no rule could cover "
        "the call.",
    )
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

    callId: str = Field(description=CALL_ID)
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


class FitStepInfo(Wire):
    """Whether the request rewrote part of what the previous request sent (a step, which a
    prompt cache must prefill again from the first change), and why."""

    changed: bool = Field(
        description="False when the request began with the whole previous request (it only "
        "appended); true when it rewrote part of it."
    )
    reason: Literal["append", "start", "path", "tools", "grew", "budget"] = Field(
        description='"append": nothing sent before changed; "start": no request before it '
        'in this process, or another session; "path": the session\'s path changed other '
        'than by adding to it (a branch, a compaction, a pin); "tools": the tool '
        'definitions changed; "grew": the prompt budget grew and shortened entries are sent '
        'whole again; "budget": the conversation outgrew the prompt budget and older entries '
        "were shortened or left out, down to the low-water mark."
    )
    keptMessages: int = Field(
        description="Leading messages sent exactly as the previous request sent them, after "
        "the same tool definitions (0 when those changed): what a prompt cache can reuse."
    )


class FittedRequest(Wire):
    """The request as sent after fitting the conversation into the prompt budget."""

    estimatedTokens: int = Field(description="Estimated tokens of its messages and tools.")
    promptBudget: int = Field(description="Context window minus completion reserve.")
    messageCount: int = Field(description="Messages it held.")
    outlined: int = Field(description="Session entries it showed as an outline.")
    summarized: int = Field(description="Session entries it showed as a summary.")
    evicted: int = Field(description="Session messages it left out.")
    step: FitStepInfo | None = Field(
        None, description="How the request began compared with the previous request."
    )


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
        None, description=TURN_ID + " Absent for a compaction `compact` started."
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
        None, description=TURN_ID + " Absent for a compaction the `compact` method started."
    )


class AgentErrorParams(Wire):
    """`agent/error`: the prompt failed."""

    error: str = Field(description="What happened and what to do, in words.")
    failure: ProviderFailureInfo | None = Field(
        None, description="When the model could not be reached or refused the request."
    )
    turnId: str | None = Field(
        None, description=TURN_ID + " Absent only when the prompt failed before its turn began."
    )


class HookRunParams(Wire):
    """`hook/run` (with rho-hooks installed): a lifecycle hook ran (see docs/hooks.md)."""

    event: str = Field(description="PreToolUse, PostToolUse, UserPromptSubmit, Stop, …")
    hook: str = Field(description="Its command line (the start of it).")
    source: str = Field(description="The file that configures it.")
    outcome: Literal["ok", "blocked", "failed", "allowed-failure"] = Field(
        description="ok; blocked (exit 2, or a block or deny decision); failed (another exit, "
        "a timeout, a crash or output that is not its JSON: it blocks); allowed-failure (it "
        'failed, and its `on_failure = "allow"` let the event go on).'
    )
    verdict: Literal["continue", "allow", "ask", "deny", "block"] = Field(
        description="What it decided."
    )
    durationMs: int = Field(description="How long it ran.")
    exitCode: int | None = Field(description="Its exit code (null: killed or never started).")
    reason: str | None = Field(None, description="The reason it gave the model.")
    failure: str | None = Field(None, description="Why it failed, naming it.")
    systemMessage: str | None = Field(None, description="Its message for the person.")
    turnId: str | None = Field(None, description=TURN_ID + " Absent outside a prompt.")


#: Notification name → params model, in the order a turn emits them.
NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "ready": ReadyParams,
    "agent/start": AgentStartParams,
    "state/change": StateChangeParams,
    "message/delta": DeltaParams,
    "reasoning/delta": DeltaParams,
    "tool/call": ToolCallParams,
    "approval/request": ApprovalRequestParams,
    "tool/approved": ToolApprovedParams,
    "tool/denied": ToolDeniedParams,
    "tool/output": ToolOutputParams,
    "tool/result": ToolResultParams,
    "usage": UsageParams,
    "context/compacted": ContextCompactedParams,
    "agent/retry": RetryParams,
    "agent/end": AgentEndParams,
    "agent/error": AgentErrorParams,
    "hook/run": HookRunParams,
}


__all__ = [
    "NOTIFICATIONS",
    "AgentEndParams",
    "AgentErrorParams",
    "AgentStartParams",
    "ApprovalRequestParams",
    "ContextCompactedParams",
    "ContextSnapshot",
    "DeltaParams",
    "EscalationInfo",
    "FitStepInfo",
    "FittedRequest",
    "HookRunParams",
    "IterationUsage",
    "ReadyParams",
    "RetryParams",
    "StateChangeParams",
    "SuggestedRuleInfo",
    "ToolApprovedParams",
    "ToolCallParams",
    "ToolCallSummary",
    "ToolDeniedParams",
    "ToolOutcome",
    "ToolOutputParams",
    "ToolResultParams",
    "TurnEvent",
    "UsageParams",
    "UsageTotals",
]
