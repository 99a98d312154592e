"""The kernel's two compaction strategies, registered at start-up by `rho.compaction`.

Registering them (and checking `[agent] compaction_mode` against their names) happens before
`ready`, so this module holds only their names and entry points: the work is imported from
`mechanical` and `llm` when a compaction runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.loop.compaction import CompactionRequest
    from rho_kernel.session.entries import CompactionSummary


class MechanicalStrategy:
    """`compaction_mode = "mechanical"`: the deterministic summary, without a model call."""

    name = "mechanical"

    async def summarize(self, request: CompactionRequest) -> CompactionSummary:
        """The mechanical summary the compactor already computed."""
        return request.mechanical


class LlmStrategy:
    """`compaction_mode = "llm"`: the mechanical summary with model-written `notes`."""

    name = "llm"

    async def summarize(self, request: CompactionRequest) -> CompactionSummary:
        """Ask the model for a narrative of the entries (at most 512 tokens)."""
        from rho_kernel.compaction.llm import llm_summary

        return await llm_summary(request)


__all__ = ["LlmStrategy", "MechanicalStrategy"]
