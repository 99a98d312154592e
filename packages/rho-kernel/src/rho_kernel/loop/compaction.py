"""The role a compaction strategy plugin fills."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rho_kernel.session.entries import Entry


class CompactionStrategy(Protocol):
    """Turns a run of session entries into a compaction summary.

    `name` is what `[agent] compaction_mode` selects (the kernel's own are "mechanical" and
    "llm"). `summarize` returns the CompactionSummary record written into the session.
    """

    name: str

    async def summarize(self, entries: list[Entry]) -> dict[str, Any]: ...


__all__ = ["CompactionStrategy"]
