"""rho-rpc renders the kernel's typed results in the protocol's camelCase form."""

from __future__ import annotations

import json
import re
from pathlib import Path

import rho_kernel
from rho_kernel.cache_hits import CacheHits
from rho_kernel.confinement.state import SandboxStatus
from rho_kernel.context.fitting import FitResult
from rho_kernel.loop.result import (
    AgentResult,
    RequestUsage,
    RunUsage,
    ToolCallRecord,
    UsageContext,
)
from rho_kernel.providers.events import Usage
from rho_kernel.runtime import ApiUsage
from rho_kernel.session.stats import ContextStats
from rho_kernel.session.tree import TreeNode
from rho_rpc import render
from rho_rpc.wire import (
    AgentEndParams,
    GetSessionStatsResult,
    SandboxInfo,
    TreeNodeInfo,
    UsageParams,
)


def _stats() -> ContextStats:
    return ContextStats(
        context_window=1000,
        completion_reserve=200,
        estimated_used=103,
        message_count=9,
        entry_count=10,
        path_entry_count=10,
        role_tokens={"tool": 4, "system": 1},
    )


def _fitted() -> FitResult:
    return FitResult(
        messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
        estimated_tokens=90,
        budget_tokens=800,
        outlined=2,
        summarized=1,
        evicted=3,
        measured=5,
        rebuilt=False,
    )


def test_agent_end_lists_tool_calls_with_output_only_when_not_a_success() -> None:
    result = AgentResult(
        reply="r",
        iterations=1,
        usage=RunUsage(Usage(input_tokens=7, output_tokens=3, cached_tokens=2), 0.5, 2),
        duration_ms=5,
        finish_reason="stop",
        tool_calls=[
            ToolCallRecord("t", "{}", "success", "out", 3, call_id="c1"),
            ToolCallRecord("u", "{}", "denied", "no", call_id="c2"),
            ToolCallRecord("v", "{}", "cancelled", "Tool call cancelled.", call_id="c3"),
        ],
        turn_id="turn_0123456789ab",
    )
    wire = render.agent_result(result)
    assert json.dumps(wire) == json.dumps(
        {
            "reply": "r",
            "iterations": 1,
            "usage": {
                "inputTokens": 7,
                "outputTokens": 3,
                "cachedTokens": 2,
                "totalTokens": 10,
                "totalCost": 0.5,
                "requestCount": 2,
            },
            "toolCalls": [
                {
                    "callId": "c1",
                    "name": "t",
                    "arguments": "{}",
                    "outcome": {"kind": "success"},
                    "durationMs": 3,
                },
                {
                    "callId": "c2",
                    "name": "u",
                    "arguments": "{}",
                    "outcome": {"kind": "denied", "output": "no"},
                },
                {
                    "callId": "c3",
                    "name": "v",
                    "arguments": "{}",
                    "outcome": {"kind": "cancelled", "output": "Tool call cancelled."},
                },
            ],
            "durationMs": 5,
            "finishReason": "stop",
            "turnId": "turn_0123456789ab",
        }
    )
    AgentEndParams.model_validate(wire)


def test_usage_notification_carries_the_request_the_context_and_what_fitting_did() -> None:
    usage = RequestUsage(input_tokens=10, output_tokens=2, cached_tokens=1, cost=0.25)
    wire = render.usage_params(3, usage, UsageContext(stats=_stats(), fitted=_fitted()))
    assert json.dumps(wire) == json.dumps(
        {
            "iteration": 3,
            "kind": "turn",
            "usage": {
                "inputTokens": 10,
                "outputTokens": 2,
                "cachedTokens": 1,
                "cost": 0.25,
                "requestCount": 1,
            },
            "context": {
                "estimatedUsed": 103,
                "contextWindow": 1000,
                "completionReserve": 200,
                "utilizationPercent": 12.9,
                "fitted": {
                    "estimatedTokens": 90,
                    "promptBudget": 800,
                    "messageCount": 2,
                    "outlined": 2,
                    "summarized": 1,
                    "evicted": 3,
                },
            },
        }
    )
    UsageParams.model_validate(wire)


def test_a_compaction_request_is_marked_in_the_usage_notification() -> None:
    usage = RequestUsage(input_tokens=70, output_tokens=3, cost=0.5, kind="compaction")
    wire = render.usage_params(0, usage, UsageContext(stats=_stats()))
    assert (wire["iteration"], wire["kind"], wire["usage"]["inputTokens"]) == (0, "compaction", 70)
    assert "fitted" not in wire["context"]
    UsageParams.model_validate(wire)


def test_usage_context_is_empty_without_a_meter_and_has_no_fitted_when_not_fitted() -> None:
    assert render.usage_context(UsageContext()) == {}
    assert render.usage_context(UsageContext(fitted=_fitted()))["fitted"]["evicted"] == 3
    assert "fitted" not in render.usage_context(UsageContext(stats=_stats()))


def test_session_stats_keep_their_key_order_and_every_distribution_key() -> None:
    wire = render.session_stats(_stats(), ApiUsage(5, 6, 1, 0.125, 2, 3, 4, 0.0625, 1), _fitted())
    assert list(wire) == [
        "contextWindow",
        "completionReserve",
        "estimatedUsed",
        "estimatedRemaining",
        "utilizationPercent",
        "messageCount",
        "entryCount",
        "pathEntryCount",
        "compactedEntryCount",
        "compactionTokens",
        "compactionCount",
        "toolSchemaTokens",
        "roleTokens",
        "resolutionTokens",
        "phaseTokens",
        "apiUsage",
        "fitted",
        "cache",
    ]
    assert wire["estimatedRemaining"] == 697
    assert wire["roleTokens"] == {"system": 1, "user": 0, "assistant": 0, "tool": 4}
    assert list(wire["resolutionTokens"]) == ["full", "outlined", "summarized", "pinned"]
    assert list(wire["phaseTokens"]) == [
        "exploration",
        "execution",
        "verification",
        "conclusion",
        "unclassified",
    ]
    assert wire["apiUsage"] == {
        "totalInputTokens": 5,
        "totalOutputTokens": 6,
        "totalCachedTokens": 1,
        "totalTokens": 11,
        "totalCost": 0.125,
        "requestCount": 2,
        "compactionInputTokens": 3,
        "compactionOutputTokens": 4,
        "compactionCost": 0.0625,
        "compactionRequestCount": 1,
    }
    # The raw path's estimates stay where they were; what the model receives is `fitted`.
    assert wire["fitted"] == {
        "estimatedTokens": 90,
        "promptBudget": 800,
        "messageCount": 2,
        "outlined": 2,
        "summarized": 1,
        "evicted": 3,
        "utilizationPercent": 11.2,
    }
    GetSessionStatsResult.model_validate(wire)


def test_a_path_that_does_not_fit_has_no_fitted_view() -> None:
    wire = render.session_stats(_stats(), ApiUsage(), None)
    assert wire["fitted"] is None
    GetSessionStatsResult.model_validate(wire)


def test_session_stats_show_the_cache_hit_rate_of_the_session_and_the_last_turn() -> None:
    session, turn = CacheHits(), CacheHits()
    session.add(1000, 400)
    session.add(3000, 2600)
    turn.add(3000, 2600)
    wire = render.session_stats(_stats(), ApiUsage(), _fitted(), (session, turn))
    assert wire["cache"] == {
        "session": {
            "cachedTokens": 3000,
            "inputTokens": 4000,
            "requestCount": 2,
            "hitRatePercent": 75.0,
        },
        "lastTurn": {
            "cachedTokens": 2600,
            "inputTokens": 3000,
            "requestCount": 1,
            "hitRatePercent": 86.6,  # 86.66… rounded down
        },
    }
    GetSessionStatsResult.model_validate(wire)


def test_no_reported_input_tokens_is_no_rate_and_no_turn_is_null() -> None:
    wire = render.session_stats(_stats(), ApiUsage(), None)
    assert wire["cache"] == {
        "session": {"cachedTokens": 0, "inputTokens": 0, "requestCount": 0, "hitRatePercent": None},
        "lastTurn": None,
    }
    GetSessionStatsResult.model_validate(wire)


def test_session_stats_are_sent_exactly_as_their_wire_model_would_send_them() -> None:
    """getSessionStats sends the rendered dict without validating it again: it must be what
    GetSessionStatsResult makes of it, member for member and type for type."""
    session = CacheHits()
    session.add(3, 1)
    for fitted, cache in ((_fitted(), (session, session)), (None, None)):
        for usage in (ApiUsage(5, 6, 1, 0.125, 2, 3, 4, 0.0625, 1), ApiUsage()):
            wire = render.session_stats(_stats(), usage, fitted, cache)
            dumped = GetSessionStatsResult.model_validate(wire).model_dump(mode="json")
            assert json.dumps(wire) == json.dumps(dumped)


def test_the_hit_rate_is_rounded_down_so_100_means_all_cached() -> None:
    almost = CacheHits()
    almost.add(10_000, 9_999)
    assert render.hit_rate_percent(almost) == 99.9
    whole = CacheHits()
    whole.add(7, 7)
    assert render.hit_rate_percent(whole) == 100.0


def test_sandbox_status_names_problem_and_fix_only_when_there_is_a_problem() -> None:
    confined = SandboxStatus("confined", "bubblewrap", ["packages.example.org"], ["/a"], ["/b"])
    assert render.sandbox_status(confined) == {
        "mode": "confined",
        "backend": "bubblewrap",
        "network": ["packages.example.org"],
        "writable": ["/a"],
        "pendingWritable": ["/b"],
    }
    unconfined = SandboxStatus("unconfined", problem="the crashing backend failed", fix="fix it")
    wire = render.sandbox_status(unconfined)
    assert (wire["problem"], wire["fix"]) == ("the crashing backend failed", "fix it")
    SandboxInfo.model_validate(wire)


def test_tree_node_keeps_a_null_parent() -> None:
    node = TreeNode("e1", None, "message", "user", "hi", "full", None, 12, True)
    wire = render.tree_node(node)
    assert json.dumps(wire) == json.dumps(
        {
            "id": "e1",
            "parentId": None,
            "kind": "message",
            "role": "user",
            "preview": "hi",
            "resolution": "full",
            "label": None,
            "timestampSecs": 12,
            "onPath": True,
        }
    )
    TreeNodeInfo.model_validate(wire)


_WIRE_KEYS = (
    "toolCalls",
    "durationMs",
    "finishReason",
    "totalCost",
    "requestCount",
    "estimatedUsed",
    "utilizationPercent",
    "completionReserve",
    "promptBudget",
    "estimatedTokens",
    "totalInputTokens",
    "pendingWritable",
    "parentId",
    "timestampSecs",
    "onPath",
)


def test_no_kernel_module_spells_a_wire_key_of_these_results() -> None:
    package = Path(rho_kernel.__file__).parent
    pattern = re.compile("|".join(f"[\"']{key}[\"']" for key in _WIRE_KEYS))
    found = [
        f"{path.relative_to(package)}: {match.group()}"
        for path in sorted(package.rglob("*.py"))
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_a_message_s_details_are_sent_only_in_the_documented_shape() -> None:
    from rho_kernel.messages import ChatMessage
    from rho_rpc.render import chat_message
    from rho_rpc.wire import ChatMessage as WireMessage

    full = {"FullOutput": {"original_size": 10, "content": "0123456789"}}
    for details, kept in [
        (full, True),
        ({"FullOutput": {"original_size": "10", "content": "x"}}, False),
        ({"Other": 1}, False),
        ([1, 2], False),
        ("text", False),
    ]:
        message = ChatMessage.tool_result("c1", "cut", False)
        message.details = details
        record = chat_message(message)
        assert ("details" in record) is kept
        WireMessage.model_validate(record)  # what is sent fits the declared type
