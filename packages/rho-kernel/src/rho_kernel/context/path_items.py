"""What the fitter knows of each entry of the path (`_Info`, measured once per entry object)
and of each turn (`_Group`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rho_kernel.context.estimator import message_bytes
from rho_kernel.messages import ChatMessage
from rho_kernel.session.entries import (
    BranchSummaryPayload,
    CompactionPayload,
    Full,
    MessagePayload,
    Pinned,
    render_entry,
)

if TYPE_CHECKING:
    from rho_kernel.session.entries import Entry

TINY_BYTES = 48
"""Entries this small are not worth shortening."""


@dataclass(slots=True, eq=False)
class _Info:
    """What fitting knows about one entry (cached per entry object)."""

    entry: Entry
    message: ChatMessage | None
    size: int
    fixed: bool  # never shortened
    keeps_group: bool  # its turn is never left out
    # Filled on demand: the tool outline text, and sizes and wire forms per level.
    outline_text: str | None = None
    outline_size: int = -1
    summary_size: int = -1
    full_wire: dict[str, Any] | None = None
    outline_wire: dict[str, Any] | None = None
    summary_wire: dict[str, Any] | None = None


_SUMMARIES = (CompactionPayload, BranchSummaryPayload)
_CALL_HEADS = ("assistant", "tool")


def _measure(entry: Entry) -> _Info:
    resolution = entry.resolution
    payload = entry.payload
    if resolution.__class__ is Full and payload.__class__ is MessagePayload:
        # the common case, without the general rendering's dispatch
        message = payload.message
        size = message_bytes(message)
        keeps = message.role == "system"
        return _Info(entry, message, size, keeps or size <= TINY_BYTES, keeps)
    rendered = render_entry(entry)
    if rendered is None:
        return _Info(entry, None, 0, True, False)
    size = message_bytes(rendered)
    keeps = (
        isinstance(payload, _SUMMARIES)
        or isinstance(resolution, Pinned)
        or rendered.role == "system"
    )
    fixed = keeps or not isinstance(resolution, Full) or size <= TINY_BYTES
    return _Info(entry, rendered, size, fixed, keeps)


@dataclass(slots=True, eq=False)
class _Group:
    """A turn: a range of path items."""

    start: int
    end: int
    head: str | None  # role of the first rendered message
    keep: bool = False
    size: int = 0
    order: list[int] | None = None
    evicted: bool = False
    #: The wire messages of `start`..`emitted` as the turn's levels stand, and the path
    #: index of each: a turn that grew adds just its new messages, and a message shortened
    #: since has its wire replaced in place.
    wires: list[dict[str, Any]] = field(default_factory=list)
    slots: list[int] = field(default_factory=list)
    emitted: int = -1
