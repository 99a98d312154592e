"""The role a compaction strategy plugin fills, and what it is given."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rho_kernel.config.model import RhoConfig
    from rho_kernel.session.entries import CompactionSummary, Entry

#: `await complete(system, prompt, max_tokens)`: the model's text answer to one request.
ModelCall = Callable[[str, str, int], Awaitable[str]]


class CompactionModelUnavailable(Exception):
    """`CompactionRequest.complete` was called where no model can be asked."""


@dataclass(slots=True)
class CompactionRequest:
    """What a strategy summarizes: the entries folded into one Compaction entry.

    `entries` are the session entries being compacted, oldest first; they may include
    earlier Compaction or BranchSummary entries, whose summaries a strategy should carry
    over. `mechanical` is rho's deterministic summary of exactly these entries (phases,
    tool calls, findings, requests): a strategy may return it as is, add `notes`, or build
    its own. `tool_phases` maps tool names to their declared phase (None: no phase).
    `budget_tokens` is the model's prompt budget, for sizing anything sent to it.
    """

    entries: Sequence[Entry]
    mechanical: CompactionSummary
    config: RhoConfig
    model: str = ""
    tool_phases: Mapping[str, str | None] = field(default_factory=dict)
    budget_tokens: int = 0
    _complete: ModelCall | None = None

    async def complete(self, system: str, prompt: str, *, max_tokens: int = 512) -> str:
        """Ask the session's model once (no tools) and return its text.

        Raises `CompactionModelUnavailable` when there is no model (a test without one),
        `ProviderError` when the request fails and `Cancelled` when the turn is aborted;
        the compactor then falls back to the mechanical summary.
        """
        if self._complete is None:
            raise CompactionModelUnavailable("no model is available to this compaction")
        return await self._complete(system, prompt, max_tokens)


@runtime_checkable
class CompactionStrategy(Protocol):
    """Turns a run of session entries into the summary that replaces them in the context.

    `name` is what `[agent] compaction_mode` selects (the kernel's own are "mechanical" and
    "llm"). `summarize` returns a `CompactionSummary` (or a mapping of its fields), or None
    to decline, in which case the mechanical summary is used. A strategy that raises, or
    returns something unusable or larger than what it replaces, is reported on stderr and
    the mechanical summary is used instead: compaction never breaks the loop. The counts
    (`entry_count`, `tokens_compacted`, `time_span`) are always set by rho.
    """

    name: str

    async def summarize(
        self, request: CompactionRequest
    ) -> CompactionSummary | Mapping[str, Any] | None: ...


__all__ = [
    "CompactionModelUnavailable",
    "CompactionRequest",
    "CompactionStrategy",
    "ModelCall",
]
