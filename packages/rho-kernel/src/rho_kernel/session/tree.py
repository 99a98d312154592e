"""The session tree as a client sees it: one bounded, one-line node per entry, in pages.

Entries are listed in the order they were appended (a parent before its children), so a
page boundary stays put while the conversation grows. A node names its parent as the tree
shows it: an unreadable entry in between is passed over, and an entry whose parent is
missing is a root. Every text in a node is cut to a fixed length and scrubbed of lone
surrogates, whatever the file holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

from rho_kernel.encoding import scrub_surrogates
from rho_kernel.session.entries import (
    Attached,
    BranchSummaryPayload,
    Compacted,
    CompactionPayload,
    CustomMessagePayload,
    CustomPayload,
    Entry,
    Full,
    LabelPayload,
    LeafMovedPayload,
    MessagePayload,
    ModelChangePayload,
    Outlined,
    Pinned,
    SessionEndedPayload,
    SessionInfoPayload,
    Summarized,
    UnknownPayload,
)

if TYPE_CHECKING:
    from rho_kernel.session.store import Session

PREVIEW_CHARS = 120
"""The longest preview of a node."""

LABEL_CHARS = 200
"""The longest label (longer ones read from a file are cut)."""

MAX_PAGE = 500
#: The most marks of one entry `getTree` shows.
MAX_MARKS = 8
"""The most nodes one page holds."""

_SCAN_CHARS = 4 * PREVIEW_CHARS  # of a long text, only its start is looked at

_KINDS: dict[type, str] = {
    MessagePayload: "message",
    CompactionPayload: "compaction",
    BranchSummaryPayload: "branchSummary",
    ModelChangePayload: "modelChange",
    LabelPayload: "label",
    SessionInfoPayload: "sessionInfo",
    LeafMovedPayload: "leafMoved",
    CustomPayload: "custom",
    SessionEndedPayload: "sessionEnded",
    CustomMessagePayload: "customMessage",
    UnknownPayload: "unknown",
}

_RESOLUTIONS: dict[type, str] = {
    Full: "full",
    Attached: "attached",
    Pinned: "pinned",
    Compacted: "compacted",
    Outlined: "outlined",
    Summarized: "summarized",
}


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """`text` on one line (runs of whitespace become one space), cut to `limit` chars."""
    flat = " ".join(scrub_surrogates(text[:_SCAN_CHARS]).split())
    if len(flat) > limit or len(text) > _SCAN_CHARS:
        return flat[: limit - 1] + "…"
    return flat


def entry_kind(entry: Entry) -> str:
    """What an entry holds: `message`, `compaction`, `branchSummary`, `label` …"""
    return _KINDS.get(type(entry.payload), "unknown")


def resolution_name(entry: Entry) -> str:
    """The entry's resolution in lower case (`full`, `outlined` …; `unknown` if unknown)."""
    return _RESOLUTIONS.get(type(entry.resolution), "unknown")


def preview(entry: Entry) -> str:
    """A one-line description of the entry, at most `PREVIEW_CHARS` long."""
    payload = entry.payload
    if isinstance(payload, MessagePayload):
        message = payload.message
        text = message.text
        if message.tool_calls and not text.strip():
            calls = ", ".join(
                f"{call.function.name}({call.function.arguments[:_SCAN_CHARS]})"
                for call in message.tool_calls[:8]
            )
            return one_line("→ " + calls)
        return one_line(text)
    if isinstance(payload, CompactionPayload | BranchSummaryPayload):
        return one_line(payload.summary.render())
    if isinstance(payload, LabelPayload):
        label = payload.label
        shown = f'"{one_line(label, 60)}"' if label is not None else "(removed)"
        return one_line(f"label {shown} on {payload.target_id}")
    if isinstance(payload, LeafMovedPayload):
        return one_line(f"leaf moved from {payload.from_ or '(none)'} to {payload.to}")
    if isinstance(payload, ModelChangePayload):
        return one_line(f"model: {payload.model}")
    if isinstance(payload, SessionInfoPayload):
        return one_line(f"session name: {payload.name}")
    if isinstance(payload, CustomPayload):
        return one_line(f"custom: {payload.kind}")
    if isinstance(payload, SessionEndedPayload):
        return one_line(f"session ended: {payload.reason}")
    if isinstance(payload, CustomMessagePayload):
        return one_line(payload.text)
    return "(an entry of a kind this version does not know)"


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One entry as `getTree` shows it."""

    id: str
    parent_id: str | None
    kind: str
    role: str | None
    preview: str
    resolution: str
    label: str | None
    timestamp_secs: int
    on_path: bool
    #: What a plugin marked its Custom entry with (the `marks` object of its data: text,
    #: numbers and booleans only, e.g. rho-checkpoints' `{"filesChanged": 3}`); None: none.
    marks: dict[str, str | int | float | bool] | None = None


def entry_marks(entry: Entry) -> dict[str, str | int | float | bool] | None:
    """The `marks` of a Custom entry's data, keeping plain values under short keys."""
    payload = entry.payload
    data = payload.data if isinstance(payload, CustomPayload) else None
    marks = data.get("marks") if isinstance(data, dict) else None
    if not isinstance(marks, dict):
        return None
    kept = {
        key: value
        for key, value in list(marks.items())[:MAX_MARKS]
        if isinstance(key, str) and len(key) <= 64 and isinstance(value, str | int | float | bool)
    }
    return {k: one_line(v, 200) if isinstance(v, str) else v for k, v in kept.items()} or None


@dataclass(frozen=True, slots=True)
class TreePage:
    """A page of the tree: `nodes` from `offset` on, of `total` entries in all."""

    nodes: list[TreeNode]
    offset: int
    total: int
    leaf_id: str | None

    @property
    def next_offset(self) -> int | None:
        """Where the next page starts, or None when this is the last."""
        end = self.offset + len(self.nodes)
        return end if end < self.total else None


def tree_page(session: Session, offset: int = 0, limit: int = 200) -> TreePage:
    """The nodes of `session`'s entries `offset` … `offset + limit - 1` (append order).

    `limit` is clamped to 1 … `MAX_PAGE`; an offset past the end gives an empty page.
    """
    limit = max(1, min(limit, MAX_PAGE))
    offset = max(0, offset)
    on_path = {entry.id for entry in session.path_entries()}
    labels = session.labels
    nodes = []
    for entry in islice(session.entries.values(), offset, offset + limit):
        message = entry.message
        label = labels.get(entry.id)
        nodes.append(
            TreeNode(
                id=entry.id,
                parent_id=session.tree_parent(entry),
                kind=entry_kind(entry),
                role=message.role if message is not None else None,
                preview=preview(entry),
                resolution=resolution_name(entry),
                label=one_line(label, LABEL_CHARS) if label is not None else None,
                timestamp_secs=entry.timestamp.secs_since_epoch,
                on_path=entry.id in on_path,
                marks=entry_marks(entry),
            )
        )
    return TreePage(nodes=nodes, offset=offset, total=session.entry_count, leaf_id=session.leaf_id)


__all__ = [
    "LABEL_CHARS",
    "MAX_PAGE",
    "PREVIEW_CHARS",
    "TreeNode",
    "TreePage",
    "entry_kind",
    "one_line",
    "preview",
    "resolution_name",
    "tree_page",
]
