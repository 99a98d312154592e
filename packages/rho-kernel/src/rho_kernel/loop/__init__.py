"""The agent loop and the roles around it: observers, approval gates, compaction strategies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.loop.agent import (
        EMPTY_REPLY_NUDGE,
        TURN_ERROR_KIND,
        AgentLoop,
        LoopParams,
        run_loop,
    )
    from rho_kernel.loop.approval import ApprovalDecision, ApprovalGate, ApprovalRequest
    from rho_kernel.loop.compaction import CompactionStrategy
    from rho_kernel.loop.guards import STUCK_PREFIX, PhaseTracker, StuckLoopDetector
    from rho_kernel.loop.observer import Observer
    from rho_kernel.loop.result import AgentError, AgentResult, RunUsage, ToolCallRecord

_ORIGIN = exports_of(
    {
        "rho_kernel.loop.agent": (
            "EMPTY_REPLY_NUDGE",
            "TURN_ERROR_KIND",
            "AgentLoop",
            "LoopParams",
            "run_loop",
        ),
        "rho_kernel.loop.approval": ("ApprovalDecision", "ApprovalGate", "ApprovalRequest"),
        "rho_kernel.loop.compaction": ("CompactionStrategy",),
        "rho_kernel.loop.guards": ("STUCK_PREFIX", "PhaseTracker", "StuckLoopDetector"),
        "rho_kernel.loop.observer": ("Observer",),
        "rho_kernel.loop.result": ("AgentError", "AgentResult", "RunUsage", "ToolCallRecord"),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "EMPTY_REPLY_NUDGE",
    "STUCK_PREFIX",
    "TURN_ERROR_KIND",
    "AgentError",
    "AgentLoop",
    "AgentResult",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequest",
    "CompactionStrategy",
    "LoopParams",
    "Observer",
    "PhaseTracker",
    "RunUsage",
    "StuckLoopDetector",
    "ToolCallRecord",
    "run_loop",
]
