"""The agent loop and the roles around it: observers, approval gates, compaction strategies."""

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
