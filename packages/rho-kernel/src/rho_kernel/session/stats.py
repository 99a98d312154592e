"""Context statistics: how much of the model's window the current path uses, and on what.

`ContextMeter` adds up the estimates of a session's current path (`rho_kernel.session.
estimates`: one per entry object, made while a resumed session is read, or when an appended
entry is first seen). The totals of the path are kept with the session and extended by the
entries appended since the last call, so a call costs what the session gained since, not
what it holds; after a branch or a resolution change they are summed again from the kept
estimates (a dict lookup per path entry, no estimate made again).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from rho_kernel.session.entries import CompactionPayload, Entry
from rho_kernel.session.estimates import (
    COMPACTED_FLAG,
    COMPACTION_FLAG,
    CONCLUSION_FLAG,
    SUMMARY_FLAG,
    Estimates,
    approximate_tokens,
    estimates_of,
    measure,
    prune_estimates,
)
from rho_kernel.session.store import Session

ROLES = ("system", "user", "assistant", "tool")
"""The keys of `ContextStats.role_tokens`."""

RESOLUTIONS = ("full", "outlined", "summarized", "pinned")
"""The keys of `ContextStats.resolution_tokens`."""

PHASES = ("exploration", "execution", "verification", "conclusion", "unclassified")
"""The keys of `ContextStats.phase_tokens`."""


def schema_tokens(schemas: list[dict[str, Any]]) -> int:
    """A quick token estimate of the tool definitions sent with every request.

    ceil(len(json.dumps(schemas)) / 4); 0 when there are no tools.
    """
    if not schemas:
        return 0
    return math.ceil(len(json.dumps(schemas)) / 4)


def _zeros(keys: tuple[str, ...]) -> dict[str, int]:
    return dict.fromkeys(keys, 0)


@dataclass(slots=True)
class ContextStats:
    """The token distribution of the context the next request would send.

    `estimated_used` is the estimate of the rendered path messages plus the caller's
    overhead (tool schemas); the distributions cover the rendered messages only.
    `entry_count` counts the whole session tree, `path_entry_count` the entries from the
    root to the leaf, and `compacted_entry_count` the entries folded into the path's
    compactions (marked `Compacted`, or counted by a Compaction entry's summary). `compaction_tokens` are the tokens of rendered Compaction and
    BranchSummary entries (also counted under the user role), `compaction_count` the
    rendered Compaction entries, and `tool_schema_tokens` the caller's overhead.
    """

    context_window: int
    completion_reserve: int
    estimated_used: int = 0
    message_count: int = 0
    entry_count: int = 0
    path_entry_count: int = 0
    compacted_entry_count: int = 0
    compaction_tokens: int = 0
    compaction_count: int = 0
    tool_schema_tokens: int = 0
    role_tokens: dict[str, int] = field(default_factory=lambda: _zeros(ROLES))
    resolution_tokens: dict[str, int] = field(default_factory=lambda: _zeros(RESOLUTIONS))
    phase_tokens: dict[str, int] = field(default_factory=lambda: _zeros(PHASES))

    @property
    def prompt_budget(self) -> int:
        """The tokens available to the prompt: window − completion reserve, at least 0."""
        return max(0, self.context_window - self.completion_reserve)

    @property
    def utilization_percent(self) -> float:
        """min(100, used·100 / prompt budget), to 1 decimal; 100 when the budget is 0."""
        budget = self.prompt_budget
        if budget <= 0:
            return 100.0
        return round(min(100.0, self.estimated_used * 100 / budget), 1)

    @property
    def estimated_remaining(self) -> int:
        """The prompt budget left: budget − used, at least 0."""
        return max(0, self.prompt_budget - self.estimated_used)


class _Tally:
    """Running totals over a prefix of one session's path, extended as the path grows.

    They do not depend on any meter: tool results are summed per tool name, and a meter
    maps the names to its phases.
    """

    __slots__ = (
        "call_names",
        "compacted",
        "compaction_tokens",
        "compactions",
        "conclusion_tokens",
        "generation",
        "messages",
        "other_tokens",
        "resolution_tokens",
        "role_tokens",
        "seen",
        "summarized",
        "tool_tokens",
        "used",
    )

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.seen = 0  # path entries counted so far
        self.used = 0
        self.messages = 0
        self.compacted = 0  # entries on the path marked Compacted
        self.summarized = 0  # entries the path's Compaction summaries say they fold
        self.compactions = 0
        self.compaction_tokens = 0
        self.call_names: dict[str, str] = {}
        self.role_tokens = _zeros(ROLES)
        self.resolution_tokens = _zeros(RESOLUTIONS)
        self.tool_tokens: dict[str | None, int] = {}  # tool results by their tool's name
        self.conclusion_tokens = 0
        self.other_tokens = 0


# The tally of each session's current path, kept with the session like its estimates.
_TALLIES: WeakKeyDictionary[Session, _Tally] = WeakKeyDictionary()


def _tally(session: Session) -> _Tally:
    """The totals of `session`'s current path: the kept ones, extended by the entries
    appended since, or summed again after a branch or a resolution change."""
    length = session.path_length()
    tally = _TALLIES.get(session)
    if tally is None or tally.generation != session.path_generation or tally.seen > length:
        tally = _TALLIES[session] = _Tally(session.path_generation)
    if tally.seen < length:
        _count(estimates_of(session), tally, session.path_tail(tally.seen))
    return tally


def _count(cache: Estimates, tally: _Tally, new: list[Entry]) -> None:
    """Add `new`, the path entries from `tally.seen` on, to `tally`."""
    role_tokens = tally.role_tokens
    resolution_tokens = tally.resolution_tokens
    tool_tokens = tally.tool_tokens
    call_names = tally.call_names
    used = messages = compacted = conclusion = other = 0
    for entry in new:
        cached = cache.get(entry.id)
        if cached is not None and cached[0] is entry:
            info = cached[1]
        else:
            info = measure(entry)
            cache[entry.id] = (entry, info)
        tokens, role, bucket, flags, tool_call_id, calls = info
        if calls:
            call_names.update(calls)
        if flags & COMPACTED_FLAG:
            compacted += 1
        if not tokens:
            continue
        used += tokens
        messages += 1
        if role in role_tokens:
            role_tokens[role] += tokens
        if bucket is not None:
            resolution_tokens[bucket] += tokens
        if flags & SUMMARY_FLAG:
            tally.compaction_tokens += tokens
            if flags & COMPACTION_FLAG:
                tally.compactions += 1
                # A compaction that wrote a new branch marks nothing `Compacted`: what it
                # folded is known from its summary.
                payload = entry.payload
                if isinstance(payload, CompactionPayload):
                    tally.summarized += max(0, payload.summary.entry_count)
        if tool_call_id is not None:
            name = call_names.get(tool_call_id)
            tool_tokens[name] = tool_tokens.get(name, 0) + tokens
        elif flags & CONCLUSION_FLAG:
            conclusion += tokens
        else:
            other += tokens
    tally.used += used
    tally.messages += messages
    tally.compacted += compacted
    tally.conclusion_tokens += conclusion
    tally.other_tokens += other
    tally.seen += len(new)


def warm_estimates(session: Session) -> None:
    """Add up `session`'s current path now (e.g. right after a resume, before the client's
    first question), so that the first `ContextMeter.stats` finds it done. A session read
    from a file has its entries estimated already (while it was read); any entry that is not
    is estimated now."""
    _tally(session)


class ContextMeter:
    """Context statistics of a session's current path.

    Token estimates are kept per entry (those of a resumed session are made while it is
    read), and the totals of the path are kept and extended by the entries appended since
    the last call, so a call after a turn costs what the turn added, not what the session
    holds. After a branch or a resolution change the totals are summed again from the kept
    estimates (a dict lookup per path entry). An entry is re-estimated only when the session
    holds a different object for its id (entries are immutable; a resolution change
    replaces the entry). Estimates and totals belong to the session, not to the meter: a
    meter rebuilt for a new budget or tool set reuses them.

    `context_window`, `completion_reserve`, `tool_phases` (tool name → phase, None or
    missing = unclassified) and `overhead_tokens` (added to `estimated_used`, e.g.
    `schema_tokens` of the tool definitions) are plain attributes that the caller may
    update, e.g. after a model switch or a tool reload.
    """

    def __init__(
        self,
        *,
        context_window: int,
        completion_reserve: int,
        tool_phases: Mapping[str, str | None] | None = None,
        overhead_tokens: int = 0,
    ) -> None:
        self.context_window = context_window
        self.completion_reserve = completion_reserve
        self.tool_phases: dict[str, str | None] = dict(tool_phases or {})
        self.overhead_tokens = overhead_tokens

    def _phase(self, tool_name: str | None) -> str:
        if tool_name is None:
            return "unclassified"
        phase = self.tool_phases.get(tool_name)
        if phase is None:
            return "unclassified"
        phase = str(phase)
        return phase if phase in PHASES else "unclassified"

    def stats(self, session: Session) -> ContextStats:
        """The statistics of `session`'s current path."""
        tally = _tally(session)
        phase_tokens = _zeros(PHASES)
        for name, tokens in tally.tool_tokens.items():
            phase_tokens[self._phase(name)] += tokens
        phase_tokens["conclusion"] += tally.conclusion_tokens
        phase_tokens["unclassified"] += tally.other_tokens
        overhead = max(0, self.overhead_tokens)
        stats = ContextStats(
            context_window=self.context_window,
            completion_reserve=self.completion_reserve,
            estimated_used=tally.used + overhead,
            message_count=tally.messages,
            entry_count=session.entry_count,
            path_entry_count=tally.seen,
            # Older compactions both mark and count what they fold: never count it twice,
            # and never more than the session holds (a damaged file's summary may claim more).
            compacted_entry_count=min(max(tally.compacted, tally.summarized), session.entry_count),
            compaction_tokens=tally.compaction_tokens,
            compaction_count=tally.compactions,
            tool_schema_tokens=overhead,
            role_tokens=dict(tally.role_tokens),
            resolution_tokens=dict(tally.resolution_tokens),
            phase_tokens=phase_tokens,
        )
        prune_estimates(session)
        return stats


__all__ = [
    "PHASES",
    "RESOLUTIONS",
    "ROLES",
    "ContextMeter",
    "ContextStats",
    "approximate_tokens",
    "schema_tokens",
    "warm_estimates",
]
