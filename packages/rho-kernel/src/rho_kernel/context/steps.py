"""Steps: how a fitted request's beginning relates to the request before it.

A provider's prompt cache (a hosted API's discount, a local server's saved prefill) reuses
the longest beginning a request shares with the one before: the tool definitions, then the
messages in order. Fitting keeps that beginning: between steps a request only appends to
the one before. A *step* rewrites part of what was sent before (an entry shortened, turns
left out, the note of what was left out) and costs one full prefill after the first change;
so a step frees the conversation down to a low-water mark (the turns never shortened and
`LOW_WATER` of the room they leave beside the tool definitions), and the next requests only
append until the conversation outgrows the budget again.

`FitStep` says what a request did: `changed` whether it rewrote part of what the previous
request sent, `reason` why (`STEP_REASONS`), and `kept_messages` how many of its leading
messages a cache can reuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

LOW_WATER: Final = 0.5
"""The share of the room beside the tool definitions and the turns never shortened that a
step frees the conversation down to (`[agent] fit_low_water`)."""

APPEND: Final = "append"
START: Final = "start"
PATH: Final = "path"
TOOLS: Final = "tools"
GREW: Final = "grew"
BUDGET: Final = "budget"

STEP_REASONS: Final = {
    APPEND: "nothing sent before changed: the request begins with the whole previous one",
    START: "the first request of this process, or of another session: none to compare with",
    PATH: "the session's path changed other than by adding to it (a branch, a compaction, "
    "a change of how an entry is shown, such as a pin)",
    TOOLS: "the tool definitions changed",
    GREW: "the prompt budget grew: entries shortened for a smaller one are sent whole again",
    BUDGET: "the conversation outgrew the prompt budget: older entries were shortened or "
    "left out, down to the low-water mark",
}
"""Every `FitStep.reason`, with what it means."""


@dataclass(frozen=True, slots=True)
class FitStep:
    """How a fitted request's beginning relates to the previous request's.

    `changed` is False when the request begins with the whole of the previous one (only
    appends); `reason` says why it changed (see `STEP_REASONS`; `append` when it did not);
    `kept_messages` counts its leading messages sent exactly as the previous request sent
    them after the same tool definitions (0 when the definitions changed): what a prompt
    cache can reuse.
    """

    changed: bool
    reason: str
    kept_messages: int


class StepTracker:
    """Remembers what the last request was sent and tells how the next one begins.

    Fitting says why it changed the plan (`reason`: a restart, a step, or None); the tracker
    compares with the last request sent and knows of changes made by fits that were not a
    request's (`view`: a statistic), which the next request reports.
    """

    def __init__(self) -> None:
        self._sent: list[Any] | None = None
        self._tools: list[Any] | None = None
        self._key: object = None
        self._unsent: str | None = None

    def note(self, reason: str | None) -> None:
        """The plan changed (`reason`) without a request being sent: an overflow."""
        self._unsent = self._unsent or reason

    def compare(
        self,
        messages: list[Any],
        tools: list[Any] | None,
        reason: str | None,
        *,
        key: object,
        view: bool,
    ) -> FitStep:
        """How `messages` (after `tools`, for conversation `key`) begin compared with the
        last request sent; unless a `view`, they become the request the next is compared
        with."""
        previous = self._sent
        same_tools = tools is self._tools or tools == self._tools
        if previous is not None and self._key != key:
            reason = reason or START
        elif not same_tools:
            reason = TOOLS if reason in (None, BUDGET, GREW) else reason
        reason = reason or self._unsent
        if previous is None:
            step = FitStep(True, START, 0)
        elif reason is None:
            step = FitStep(False, APPEND, len(previous))  # nothing was rewritten since
        else:
            kept = kept_messages(previous, messages) if same_tools else 0
            changed = kept < len(previous) or not same_tools
            step = FitStep(changed, reason if changed else APPEND, kept)
        if view:
            self._unsent = reason if step.changed else self._unsent
        else:
            self._sent, self._tools, self._key, self._unsent = messages, tools, key, None
        return step


def kept_messages(previous: Sequence[Any], current: Sequence[Any]) -> int:
    """How many leading elements of `current` equal `previous`'s (the same object first)."""
    kept = 0
    for before, now in zip(previous, current, strict=False):
        if before is not now and before != now:
            break
        kept += 1
    return kept


__all__ = [
    "APPEND",
    "BUDGET",
    "GREW",
    "LOW_WATER",
    "PATH",
    "START",
    "STEP_REASONS",
    "TOOLS",
    "FitStep",
    "StepTracker",
    "kept_messages",
]
