"""The kernel's typed results in the protocol's camelCase form (one function per type).

The kernel knows nothing of the wire: it hands over dataclasses, and these functions build
the JSON objects that `agent/end`, `usage`, `approval/request`, `getState`, `getMessages`, `listTools`,
`getSessionStats` and `getTree` carry. Key order is part of the output: keep it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_kernel.session import PHASES, RESOLUTIONS, ROLES

if TYPE_CHECKING:
    from rho_kernel import (
        AgentResult,
        ApprovalRequest,
        ChatMessage,
        ContextCompacted,
        ProviderFailure,
        RequestUsage,
        UsageContext,
    )
    from rho_kernel.frontend import (
        ApiUsage,
        CacheHits,
        FitResult,
        RunUsage,
        SandboxStatus,
        ToolCallRecord,
        ToolShare,
    )
    from rho_kernel.session import ContextStats, TreeNode


def tool_call(record: ToolCallRecord) -> dict[str, Any]:
    """One entry of `agent/end`'s `toolCalls` (`outcome.output` only when not a success)."""
    outcome: dict[str, Any] = {"kind": record.outcome}
    if record.outcome != "success" and record.output is not None:
        outcome["output"] = record.output
    wire: dict[str, Any] = {
        "callId": record.call_id,
        "name": record.name,
        "arguments": record.arguments,
        "outcome": outcome,
    }
    if record.duration_ms is not None:
        wire["durationMs"] = record.duration_ms
    return wire


def run_usage(usage: RunUsage) -> dict[str, Any]:
    """`agent/end`'s `usage`: the run's tokens, cost and requests."""
    return {
        "inputTokens": usage.tokens.input_tokens,
        "outputTokens": usage.tokens.output_tokens,
        "cachedTokens": usage.tokens.cached_tokens,
        "totalTokens": usage.tokens.input_tokens + usage.tokens.output_tokens,
        "totalCost": usage.total_cost,
        "requestCount": usage.request_count,
    }


def agent_result(result: AgentResult) -> dict[str, Any]:
    """The `agent/end` notification's params (`reasoning` and `turnId` when present)."""
    params: dict[str, Any] = {"reply": result.reply}
    if result.reasoning is not None:
        params["reasoning"] = result.reasoning
    params.update(
        iterations=result.iterations,
        usage=run_usage(result.usage),
        toolCalls=[tool_call(call) for call in result.tool_calls],
        durationMs=result.duration_ms,
        finishReason=result.finish_reason,
    )
    if result.turn_id is not None:
        params["turnId"] = result.turn_id
    return params


def provider_failure(failure: ProviderFailure) -> dict[str, Any]:
    """`agent/error`'s and the `prompt` result's `failure` (`reason`, `status` when known)."""
    wire: dict[str, Any] = {"kind": failure.kind}
    if failure.reason:
        wire["reason"] = failure.reason
    wire |= {"provider": failure.provider, "endpoint": failure.endpoint}
    if failure.status is not None:
        wire["status"] = failure.status
    wire |= {"attempts": failure.attempts, "retryable": failure.retryable, "hint": failure.hint}
    return wire


def context_compacted(compaction: ContextCompacted) -> dict[str, Any]:
    """The `context/compacted` notification's params."""
    wire: dict[str, Any] = {
        "trigger": compaction.trigger,
        "strategy": compaction.strategy,
        "requested": compaction.requested,
        "entriesCompacted": compaction.entries_compacted,
        "tokensBefore": compaction.tokens_before,
        "tokensAfter": compaction.tokens_after,
    }
    if compaction.summary_id is not None:
        wire["summaryId"] = compaction.summary_id
    return wire


def tool_definitions(share: ToolShare) -> dict[str, Any]:
    """`getState`'s `toolDefinitions`: their share of the prompt budget, per pack."""
    wire: dict[str, Any] = {
        "tokens": share.tokens,
        "promptBudget": share.prompt_budget,
        "overHalf": share.over_half,
        "packs": [
            {"plugin": pack.plugin, "tokens": pack.tokens, "tools": pack.tools}
            for pack in share.packs
        ],
    }
    warning = share.warning()
    if warning is not None:
        wire["warning"] = warning
    return wire


def request_usage(usage: RequestUsage) -> dict[str, Any]:
    """The `usage` notification's `usage`: one model request."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cachedTokens": usage.cached_tokens,
        "cost": usage.cost,
        "requestCount": usage.request_count,
    }


def context_snapshot(stats: ContextStats) -> dict[str, Any]:
    """The context window in brief: the `usage` notification's `context` without `fitted`."""
    return {
        "estimatedUsed": stats.estimated_used,
        "contextWindow": stats.context_window,
        "completionReserve": stats.completion_reserve,
        "utilizationPercent": stats.utilization_percent,
    }


def fit_result(fitted: FitResult) -> dict[str, Any]:
    """The `fitted` part of the `usage` notification's `context`."""
    return {
        "estimatedTokens": fitted.estimated_tokens,
        "promptBudget": fitted.budget_tokens,
        "messageCount": len(fitted.messages),
        "outlined": fitted.outlined,
        "summarized": fitted.summarized,
        "evicted": fitted.evicted,
    }


def usage_context(context: UsageContext) -> dict[str, Any]:
    """The `usage` notification's `context`: empty without a meter, `fitted` when fitted
    (with its `step` when the fitter said how the request began)."""
    wire = context_snapshot(context.stats) if context.stats is not None else {}
    fitted = context.fitted
    if fitted is not None:
        wire["fitted"] = fit_result(fitted)
        if fitted.step is not None:
            wire["fitted"]["step"] = {
                "changed": fitted.step.changed,
                "reason": fitted.step.reason,
                "keptMessages": fitted.step.kept_messages,
            }
    return wire


def usage_params(iteration: int, usage: RequestUsage, context: UsageContext) -> dict[str, Any]:
    """The `usage` notification's params."""
    return {
        "iteration": iteration,
        "kind": usage.kind,
        "usage": request_usage(usage),
        "context": usage_context(context),
    }


def context_stats(stats: ContextStats) -> dict[str, Any]:
    """The `getSessionStats` result fields, without `apiUsage`."""
    return {
        "contextWindow": stats.context_window,
        "completionReserve": stats.completion_reserve,
        "estimatedUsed": stats.estimated_used,
        "estimatedRemaining": stats.estimated_remaining,
        "utilizationPercent": stats.utilization_percent,
        "messageCount": stats.message_count,
        "entryCount": stats.entry_count,
        "pathEntryCount": stats.path_entry_count,
        "compactedEntryCount": stats.compacted_entry_count,
        "compactionTokens": stats.compaction_tokens,
        "compactionCount": stats.compaction_count,
        "toolSchemaTokens": stats.tool_schema_tokens,
        "roleTokens": {key: stats.role_tokens.get(key, 0) for key in ROLES},
        "resolutionTokens": {key: stats.resolution_tokens.get(key, 0) for key in RESOLUTIONS},
        "phaseTokens": {key: stats.phase_tokens.get(key, 0) for key in PHASES},
    }


def api_usage(usage: ApiUsage) -> dict[str, int | float]:
    """The `apiUsage` part of `getSessionStats`: this process's totals."""
    return {
        "totalInputTokens": usage.input_tokens,
        "totalOutputTokens": usage.output_tokens,
        "totalCachedTokens": usage.cached_tokens,
        "totalTokens": usage.input_tokens + usage.output_tokens,
        "totalCost": usage.total_cost,
        "requestCount": usage.request_count,
        "compactionInputTokens": usage.compaction_input_tokens,
        "compactionOutputTokens": usage.compaction_output_tokens,
        "compactionCost": usage.compaction_cost,
        "compactionRequestCount": usage.compaction_request_count,
    }


def fitted_view(fitted: FitResult) -> dict[str, Any]:
    """`getSessionStats`' `fitted`: the path as the model receives it (`fit_result`'s
    members, with `utilizationPercent` after `promptBudget`)."""
    view = fit_result(fitted)
    ordered = {key: view.pop(key) for key in ("estimatedTokens", "promptBudget")}
    ordered["utilizationPercent"] = fitted_percent(fitted)
    ordered.update(view)
    return ordered


def fitted_percent(fitted: FitResult) -> float:
    """The fitted request's share of the prompt budget: 0–100, one decimal (100 when the
    budget is 0)."""
    if fitted.budget_tokens <= 0:
        return 100.0
    return min(100.0, round(fitted.estimated_tokens * 100 / fitted.budget_tokens, 1))


def hit_rate_percent(hits: CacheHits) -> float | None:
    """cached ÷ input tokens as a percentage rounded down to one decimal (so 100 means
    every input token was cached); None while no input tokens were reported."""
    if hits.input_tokens <= 0:
        return None
    return min(hits.cached_tokens * 1000 // hits.input_tokens, 1000) / 10


def cache_hit_rate(hits: CacheHits) -> dict[str, Any]:
    """One `CacheHitRate` of `getSessionStats`' `cache`."""
    return {
        "cachedTokens": hits.cached_tokens,
        "inputTokens": hits.input_tokens,
        "requestCount": hits.request_count,
        "hitRatePercent": hit_rate_percent(hits),
    }


def cache_stats(session: CacheHits, last_turn: CacheHits | None) -> dict[str, Any]:
    """`getSessionStats`' `cache`: the hit rate of the session and of its last turn."""
    return {
        "session": cache_hit_rate(session),
        "lastTurn": cache_hit_rate(last_turn) if last_turn is not None else None,
    }


def session_stats(
    stats: ContextStats,
    usage: ApiUsage,
    fitted: FitResult | None = None,
    cache: tuple[CacheHits, CacheHits | None] | None = None,
) -> dict[str, Any]:
    """The `getSessionStats` result fields (`fitted` None: the path does not fit; `cache`
    the hits of the session and of its last turn, none counted when None)."""
    from rho_kernel.frontend import CacheHits

    session, last_turn = cache if cache is not None else (CacheHits(), None)
    return {
        **context_stats(stats),
        "apiUsage": api_usage(usage),
        "fitted": fitted_view(fitted) if fitted is not None else None,
        "cache": cache_stats(session, last_turn),
    }


def tree_node(node: TreeNode) -> dict[str, Any]:
    """One entry of `getTree` (`marks` only when a plugin marked it)."""
    wire: dict[str, Any] = {
        "id": node.id,
        "parentId": node.parent_id,
        "kind": node.kind,
        "role": node.role,
        "preview": node.preview,
        "resolution": node.resolution,
        "label": node.label,
        "timestampSecs": node.timestamp_secs,
        "onPath": node.on_path,
    }
    if node.marks:
        wire["marks"] = node.marks
    return wire


def chat_message(message: ChatMessage) -> dict[str, Any]:
    """One message of `getMessages`: its record, with `details` only in the shape rho
    writes (`{"FullOutput": {"original_size", "content"}}`; a session file may hold others)."""
    record = message.to_record()
    details = record.get("details")
    if details is not None and not _is_full_output(details):
        del record["details"]
    return record


def _is_full_output(details: Any) -> bool:
    if not isinstance(details, dict) or set(details) != {"FullOutput"}:
        return False
    full = details["FullOutput"]
    return (
        isinstance(full, dict)
        and set(full) == {"original_size", "content"}
        and type(full["original_size"]) is int
        and isinstance(full["content"], str)
    )


def approval_request(request: ApprovalRequest) -> dict[str, Any]:
    """The `approval/request` notification's params (without `turnId`); `rho exec
    --approve-with` hands its program the same object."""
    params: dict[str, Any] = {
        "approvalId": request.approval_id,
        "callId": request.call_id,
        "tool": request.tool,
        "arguments": request.arguments,
        "risk": str(request.risk),
    }
    if request.sandbox is not None:
        params["sandbox"] = sandbox_status(request.sandbox)
    params["suggestedRules"] = [
        {"scope": offered.scope, "rule": offered.rule, "label": offered.label or offered.rule}
        for offered in request.suggested_rules
    ]
    if request.preview is not None:
        params["preview"] = request.preview
    if request.working_directory is not None:
        params["workingDirectory"] = request.working_directory
    if request.reason is not None:
        params["reason"] = request.reason
    if request.escalation is not None:
        params["escalation"] = {
            "sandbox": request.escalation.sandbox,
            "justification": request.escalation.justification,
        }
    return params


def sandbox_status(status: SandboxStatus) -> dict[str, Any]:
    """How commands run (`problem`/`fix` only when commands are not confined)."""
    wire: dict[str, Any] = {
        "mode": status.mode,
        "backend": status.backend,
        "network": status.network,
        "writable": status.writable,
        "pendingWritable": status.pending_writable,
    }
    if status.problem is not None:
        wire["problem"] = status.problem
        wire["fix"] = status.fix
    if status.asks:
        wire["alwaysAsks"] = True
    if status.limits:
        wire["limits"] = status.limits
    return wire


__all__ = [
    "agent_result",
    "api_usage",
    "approval_request",
    "cache_hit_rate",
    "cache_stats",
    "chat_message",
    "context_snapshot",
    "context_stats",
    "fit_result",
    "fitted_percent",
    "fitted_view",
    "hit_rate_percent",
    "request_usage",
    "run_usage",
    "sandbox_status",
    "session_stats",
    "tree_node",
    "usage_context",
    "usage_params",
]
