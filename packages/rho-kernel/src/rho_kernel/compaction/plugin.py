"""The kernel's own compaction strategies (plugin `rho.compaction`)."""

from __future__ import annotations

from rho_kernel.compaction.llm import LlmStrategy
from rho_kernel.compaction.mechanical import MechanicalStrategy
from rho_kernel.loop.compaction import CompactionStrategy
from rho_kernel.plugins import hookimpl


@hookimpl
def rho_register_compaction_strategies() -> list[CompactionStrategy]:
    """ "mechanical" (deterministic) and "llm" (model-written notes, mechanical on failure)."""
    return [MechanicalStrategy(), LlmStrategy()]


__all__ = ["rho_register_compaction_strategies"]
