"""`getState`: the state result, how commands are confined, the tool definitions' share."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from rho_rpc.protocol.base import MODEL_PROBLEM, NO_MODEL, Result, Wire

PermissionModeName = Literal["ask", "auto-edit", "read-only", "auto"]
"""The permission modes (`[approval] mode`)."""


class SandboxInfo(Wire):
    """How the commands rho runs for the model are confined."""

    mode: Literal["confined", "unconfined", "off", "refused"] = Field(
        description='"confined" (by `backend`), "unconfined" (no sandbox backend works here: '
        'see `problem`, `fix` and `alwaysAsks`), "off" ([sandbox] mode = "off" or '
        '--no-sandbox) or "refused" (no backend works and [sandbox] require = true: commands '
        "do not run)."
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
    alwaysAsks: bool = Field(
        False,
        description='Unconfined, and [sandbox] require = "ask" (the default): every command '
        "asks for approval whatever the rules, the approval mode or a plugin say, and runs "
        "unconfined only once approved (absent otherwise).",
    )
    limits: list[str] = Field(
        default_factory=list,
        description="What the backend cannot enforce on this machine, or must forbid that "
        'others allow (e.g. Landlock without namespaces: "no local network either"), one '
        "sentence each.",
    )


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


class QueuedPrompt(Wire):
    """A prompt queued with `queue: true` that has not started yet."""

    turnId: str = Field(description="The turn it will run as.")
    preview: str = Field(description="Its message on one line, at most 120 characters.")


class GetStateResult(Result):
    """`getState` result. Plugins add members of their own (`rho_state`), each named by the
    plugin and holding any JSON value, e.g. `mcp` from rho-mcp (docs/mcp.md)."""

    model_config = ConfigDict(extra="allow")

    model: str | None = Field(description="The model prompts go to; " + NO_MODEL)
    modelProblem: str | None = Field(None, description=MODEL_PROBLEM)
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
    approvalMode: PermissionModeName = Field(
        description="How much runs without asking (see setApprovalMode)."
    )
    queued: list[QueuedPrompt] = Field(
        default_factory=list,
        description="Prompts queued with queue: true that have not started, first to run first.",
    )
    reasoningEffort: str | None = Field(
        None,
        description="The reasoning effort sent with each model request (setReasoningEffort, "
        "or [agent] reasoning_effort); absent when none is sent.",
    )


__all__ = [
    "GetStateResult",
    "PackToolTokens",
    "PermissionModeName",
    "QueuedPrompt",
    "SandboxInfo",
    "ToolDefinitionsInfo",
]
