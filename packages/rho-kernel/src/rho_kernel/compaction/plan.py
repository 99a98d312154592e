"""Which entries of the current path a compaction folds into its summary.

The path is cut into turns (a message that is not a tool result, with the tool results and
metadata entries after it), so an assistant's tool calls and their results are always on the
same side of the cut. The root system message is shared by both branches; the last turn is
always kept verbatim; so are turns holding a pinned entry and the first user message (when it
is not too large). Of the rest, the oldest turns are compacted first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rho_kernel.session.entries import (
    BranchSummaryPayload,
    Compacted,
    CompactionPayload,
    CustomPayload,
    Entry,
    MessagePayload,
    ModelChangePayload,
    Pinned,
    SessionInfoPayload,
    UnknownPayload,
    render_entry,
)

#: Estimates the tokens an entry contributes to the context (0 when it renders nothing).
EntryEstimator = Callable[[Entry], int]

#: Metadata payloads that carry state along the path, so the new branch keeps a copy.
_CARRIED = (CustomPayload, ModelChangePayload, SessionInfoPayload, UnknownPayload)


@dataclass(slots=True)
class CompactionPlan:
    """How a path is rewritten: `anchor`, `preserved`, the summary of `compacted`, `kept`.

    `anchor` is the root system message (None when the path does not start with one);
    `preserved` are entries from the compacted span carried over verbatim (pinned turns, the
    first user message, extension state); `compacted` are folded into the summary; `kept`
    are the recent entries copied after it, starting at a turn boundary.
    """

    anchor: Entry | None
    preserved: list[Entry] = field(default_factory=list)
    compacted: list[Entry] = field(default_factory=list)
    kept: list[Entry] = field(default_factory=list)
    tokens_compacted: int = 0
    tokens_before: int = 0
    #: Whether the first user message is carried over verbatim (in `preserved`).
    first_request_kept: bool = False

    @property
    def request_in_kept(self) -> bool:
        """Whether a user message is among the kept recent entries."""
        return any(
            entry.message is not None and entry.message.role == "user" for entry in self.kept
        )


def _is_boundary(entry: Entry) -> bool:
    """Whether a turn starts at this entry: a rendered message that is not a tool result."""
    message = entry.message
    if message is not None:
        return message.role != "tool"
    return isinstance(entry.payload, CompactionPayload | BranchSummaryPayload) or (
        render_entry(entry) is not None
    )


def split_turns(entries: Sequence[Entry]) -> list[list[Entry]]:
    """Group path entries into turns; a turn never separates a tool call from its result."""
    turns: list[list[Entry]] = []
    for entry in entries:
        if not turns or _is_boundary(entry):
            turns.append([entry])
        else:
            turns[-1].append(entry)
    return turns


def _is_first_user(turn: list[Entry], seen_user: bool) -> bool:
    message = turn[0].message
    return not seen_user and message is not None and message.role == "user"


def plan_compaction(
    path: Sequence[Entry],
    estimate: EntryEstimator,
    *,
    target_tokens: int | None = None,
    first_user_limit: int = 0,
) -> CompactionPlan | None:
    """Plan the compaction of `path` (root to leaf); None when there is nothing to compact.

    Compacts the oldest turns until at least `target_tokens` are folded (None: every turn but
    the last). The first user message is kept verbatim when it is at most
    `first_user_limit` tokens. Entries already `Compacted` (by an older writer) are left
    out: their summary stands in for them. A plan must fold at least one entry that is not
    itself a summary, so compacting twice in a row does nothing the second time.
    """
    live = [entry for entry in path if not isinstance(entry.resolution, Compacted)]
    anchor = None
    if live and live[0].message is not None and live[0].message.role == "system":
        anchor, live = live[0], live[1:]
    turns = split_turns(live)
    if len(turns) < 2:
        return None
    plan = CompactionPlan(anchor=anchor)
    plan.tokens_before = sum(estimate(entry) for entry in path)
    seen_user = False
    cut = len(turns) - 1
    for index, turn in enumerate(turns[:-1]):
        if target_tokens is not None and plan.tokens_compacted >= target_tokens:
            cut = index
            break
        first_user = _is_first_user(turn, seen_user)
        seen_user = seen_user or first_user
        if any(isinstance(entry.resolution, Pinned) for entry in turn) or (
            first_user and estimate(turn[0]) <= first_user_limit
        ):
            plan.preserved.extend(turn)
            plan.first_request_kept = plan.first_request_kept or first_user
            continue
        for entry in turn:
            if estimate(entry) == 0 and not isinstance(entry.payload, MessagePayload):
                if isinstance(entry.payload, _CARRIED):
                    plan.preserved.append(entry)
                continue
            plan.compacted.append(entry)
            plan.tokens_compacted += estimate(entry)
    for turn in turns[cut:]:
        plan.kept.extend(turn)
    fresh = any(
        not isinstance(entry.payload, CompactionPayload | BranchSummaryPayload)
        for entry in plan.compacted
    )
    if not fresh or plan.tokens_compacted <= 0:
        return None
    return plan


__all__ = ["CompactionPlan", "EntryEstimator", "plan_compaction", "split_turns"]
