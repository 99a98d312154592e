"""Compaction: folding older turns into a summary on a new branch of the session.

Strategies are plugins (`rho_register_compaction_strategies`); the kernel registers
"mechanical" and "llm" as `rho.compaction`. `[agent] compaction_mode` picks one by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.compaction.compactor import (
        CompactionOutcome,
        Compactor,
        UnknownStrategy,
        entry_tokens,
        summary_tokens,
        tool_phases,
        unknown_strategy_message,
        write_branch,
    )
    from rho_kernel.compaction.llm import transcript
    from rho_kernel.compaction.mechanical import mechanical_summary
    from rho_kernel.compaction.model import model_call
    from rho_kernel.compaction.plan import CompactionPlan, plan_compaction, split_turns
    from rho_kernel.compaction.registry import DuplicateStrategy, collect_strategies
    from rho_kernel.compaction.strategies import LlmStrategy, MechanicalStrategy
    from rho_kernel.loop.compaction import (
        CompactionModelUnavailable,
        CompactionRequest,
        CompactionStrategy,
    )

_ORIGIN = exports_of(
    {
        "rho_kernel.compaction.compactor": (
            "CompactionOutcome",
            "Compactor",
            "UnknownStrategy",
            "entry_tokens",
            "summary_tokens",
            "tool_phases",
            "unknown_strategy_message",
            "write_branch",
        ),
        "rho_kernel.compaction.llm": ("transcript",),
        "rho_kernel.compaction.mechanical": ("mechanical_summary",),
        "rho_kernel.compaction.strategies": ("LlmStrategy", "MechanicalStrategy"),
        "rho_kernel.compaction.model": ("model_call",),
        "rho_kernel.compaction.plan": ("CompactionPlan", "plan_compaction", "split_turns"),
        "rho_kernel.compaction.registry": ("DuplicateStrategy", "collect_strategies"),
        "rho_kernel.loop.compaction": (
            "CompactionModelUnavailable",
            "CompactionRequest",
            "CompactionStrategy",
        ),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "CompactionModelUnavailable",
    "CompactionOutcome",
    "CompactionPlan",
    "CompactionRequest",
    "CompactionStrategy",
    "Compactor",
    "DuplicateStrategy",
    "LlmStrategy",
    "MechanicalStrategy",
    "UnknownStrategy",
    "collect_strategies",
    "entry_tokens",
    "mechanical_summary",
    "model_call",
    "plan_compaction",
    "split_turns",
    "summary_tokens",
    "tool_phases",
    "transcript",
    "unknown_strategy_message",
    "write_branch",
]
