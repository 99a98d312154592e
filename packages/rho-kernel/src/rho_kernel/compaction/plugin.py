"""The kernel's own compaction strategies (plugin `rho.compaction`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.compaction.strategies import LlmStrategy, MechanicalStrategy
from rho_kernel.plugins import hookimpl

if TYPE_CHECKING:
    from rho_kernel.loop.compaction import CompactionStrategy


@hookimpl
def rho_register_compaction_strategies() -> list[CompactionStrategy]:
    """ "mechanical" (deterministic) and "llm" (model-written notes, mechanical on failure)."""
    return [MechanicalStrategy(), LlmStrategy()]


__all__ = ["rho_register_compaction_strategies"]
