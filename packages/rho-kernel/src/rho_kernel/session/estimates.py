"""The token estimate of each session entry, made once per entry object and kept with the
session.

`approximate_tokens` is the cheap per-message estimator of the context statistics;
`measure` applies it to one entry at its resolution and returns what the statistics add up
(an `EntryInfo`). A session read from a file has every entry measured during the load's own
pass over its lines (`rho_kernel.session.loading.replay`), so the first statistics of a
resumed session only add the estimates up; entries appended later are measured when the
statistics first see them. An entry is measured again only when the session holds another
object for its id (entries are immutable: a resolution change replaces the entry).

This module depends on entries and messages only, so that the loader can use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from rho_kernel.messages import ChatMessage
from rho_kernel.session.entries import (
    BranchSummaryPayload,
    Compacted,
    CompactionPayload,
    Entry,
    Full,
    MessagePayload,
    Outlined,
    Pinned,
    Summarized,
    render_entry,
)

if TYPE_CHECKING:
    from rho_kernel.session.store import Session

_MESSAGE_OVERHEAD = 20
_TOOL_MESSAGE_OVERHEAD = 10


def _utf8_len(text: str) -> int:
    if text.isascii():  # constant time: CPython records it
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate
        return len(text.encode("utf-8", "surrogatepass"))


def approximate_tokens(message: ChatMessage) -> int:
    """A quick token estimate of one message: ceil(bytes / 4), at least 1.

    The bytes are the UTF-8 text, 20 for the message framing, for a tool message its
    `tool_call_id` plus 10, and for each tool call its name and raw arguments.
    """
    content = message.content
    text = content if type(content) is str else message.text
    size = (len(text) if text.isascii() else _utf8_len(text)) + _MESSAGE_OVERHEAD
    if message.role == "tool":
        size += _utf8_len(message.tool_call_id or "") + _TOOL_MESSAGE_OVERHEAD
    for call in message.tool_calls or ():
        size += _utf8_len(call.function.name) + _utf8_len(call.function.arguments)
    return max(1, -(-size // 4))


EntryInfo = tuple[int, str | None, str | None, int, str | None, tuple[tuple[str, str], ...]]
"""What is known of one entry at one resolution, as a plain tuple (cheap to make by the ten
thousand): (tokens — 0 when nothing renders, role, resolution bucket, flags, tool_call_id of
a rendered tool message, (call id, tool name) of its tool calls)."""

COMPACTED_FLAG = 1
"""Folded into a compaction."""
SUMMARY_FLAG = 2
"""A rendered Compaction or BranchSummary."""
COMPACTION_FLAG = 4
"""A rendered Compaction."""
CONCLUSION_FLAG = 8
"""A rendered assistant text without tool calls."""

_NOT_RENDERED: EntryInfo = (0, None, None, 0, None, ())
_COMPACTED: EntryInfo = (0, None, None, COMPACTED_FLAG, None, ())
_BUCKETS: dict[type, str] = {
    Full: "full",
    Pinned: "pinned",
    Outlined: "outlined",
    Summarized: "summarized",
}


def measure(entry: Entry) -> EntryInfo:
    """Estimate one entry at its resolution (the only caller of `approximate_tokens`)."""
    payload = entry.payload
    kind = type(entry.resolution)
    if type(payload) is MessagePayload and (kind is Full or kind is Pinned):
        # The common case, without render_entry's copy: the message is sent as it is.
        message = payload.message
        role = message.role
        tool_calls = message.tool_calls
        calls = tuple((c.id, c.function.name) for c in tool_calls) if tool_calls else ()
        flags = CONCLUSION_FLAG if role == "assistant" and not tool_calls and message.text else 0
        return (
            approximate_tokens(message),
            role,
            _BUCKETS[kind],
            flags,
            message.tool_call_id if role == "tool" else None,
            calls,
        )
    return _measure_rendered(entry)


def _measure_rendered(entry: Entry) -> EntryInfo:
    """Estimate an entry through what `render_entry` makes of it."""
    source = entry.message
    calls = (
        tuple((call.id, call.function.name) for call in source.tool_calls)
        if source is not None and source.tool_calls
        else ()
    )
    if type(entry.resolution) is Compacted:
        return (0, None, None, COMPACTED_FLAG, None, calls) if calls else _COMPACTED
    rendered = render_entry(entry)
    if rendered is None:
        return (0, None, None, 0, None, calls) if calls else _NOT_RENDERED
    role = rendered.role
    payload = entry.payload
    flags = 0
    if isinstance(payload, CompactionPayload | BranchSummaryPayload):
        flags |= SUMMARY_FLAG
    if isinstance(payload, CompactionPayload):
        flags |= COMPACTION_FLAG
    if role == "assistant" and not rendered.tool_calls and rendered.text:
        flags |= CONCLUSION_FLAG
    return (
        approximate_tokens(rendered),
        role,
        _BUCKETS.get(type(entry.resolution)),
        flags,
        rendered.tool_call_id if role == "tool" else None,
        calls,
    )


Estimates = dict[str, tuple[Entry, EntryInfo]]
"""Entry id → (the entry object estimated, what it came to)."""


def measure_into(estimates: Estimates, entry: Entry) -> None:
    """Estimate `entry` into `estimates`; an entry that cannot be estimated is left out
    (it is tried again, and its failure reported, when statistics are asked for)."""
    try:
        estimates[entry.id] = (entry, measure(entry))
    except Exception:  # a hostile file must never stop a load
        estimates.pop(entry.id, None)


# The estimates of each session's entries, shared by every meter (a meter is rebuilt when the
# budget or the tools change; the estimates do not depend on either) and dropped with the
# session.
_ESTIMATES: WeakKeyDictionary[Session, Estimates] = WeakKeyDictionary()


def estimates_of(session: Session) -> Estimates:
    """The kept estimates of `session`'s entries (made empty on first use)."""
    estimates = _ESTIMATES.get(session)
    if estimates is None:
        estimates = _ESTIMATES[session] = {}
    return estimates


def keep_estimates(session: Session, estimates: Estimates) -> None:
    """Keep `estimates` (made while `session` was read) as `session`'s."""
    _ESTIMATES[session] = estimates


def prune_estimates(session: Session) -> None:
    """Drop estimates of entries the session no longer holds (replaced by a resolution
    change) once they pile up."""
    estimates = estimates_of(session)
    entries = session.entries
    if len(estimates) <= 2 * len(entries) + 256:
        return
    _ESTIMATES[session] = {
        key: value for key, value in estimates.items() if entries.get(key) is value[0]
    }


__all__ = [
    "COMPACTED_FLAG",
    "COMPACTION_FLAG",
    "CONCLUSION_FLAG",
    "SUMMARY_FLAG",
    "EntryInfo",
    "Estimates",
    "approximate_tokens",
    "estimates_of",
    "keep_estimates",
    "measure",
    "measure_into",
    "prune_estimates",
]
