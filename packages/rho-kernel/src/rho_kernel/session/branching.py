"""What a branch summary says about the path a `branchTo` leaves behind.

The summary is mechanical (no model is asked): the first and last user requests of the
abandoned entries, the tools called with their arguments and a line of each result, how
many entries and tokens were left and over how long. An optional note (written by the
client) is kept as the summary's notes. Every text is bounded, whatever the session holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from rho_kernel.session.entries import CompactionSummary, Entry, TimeSpan, render_entry
from rho_kernel.session.stats import approximate_tokens
from rho_kernel.session.tree import one_line

REQUEST_CHARS = 200
"""The longest request quoted in a summary."""

ARGUMENT_CHARS = 80
"""The longest argument summary of one tool call."""

FINDING_CHARS = 150
"""The longest result summary of one tool call."""

PER_TOOL = 10
"""The most calls (and results) listed per tool; later ones are counted, not listed."""

NOTE_CHARS = 4000
"""The longest note a client may attach to a branch summary."""


def _span(entries: Sequence[Entry]) -> TimeSpan:
    first, last = entries[0].timestamp, entries[-1].timestamp
    nanos = (last.secs_since_epoch - first.secs_since_epoch) * 1_000_000_000 + (
        last.nanos_since_epoch - first.nanos_since_epoch
    )
    secs, rest = divmod(max(0, nanos), 1_000_000_000)
    return TimeSpan(secs=secs, nanos=rest)


def _tool_activity(
    entries: Sequence[Entry],
) -> tuple[dict[str, list[str]], dict[str, list[str]], int]:
    """(tool → argument summaries, tool → result summaries, calls not listed)."""
    calls: dict[str, list[str]] = {}
    findings: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    unlisted = 0
    for entry in entries:
        message = entry.message
        if message is None:
            continue
        for call in message.tool_calls or ():
            name = one_line(call.function.name, 60) or "(unnamed)"
            names[call.id] = name
            listed = calls.setdefault(name, [])
            if len(listed) < PER_TOOL:
                listed.append(one_line(call.function.arguments, ARGUMENT_CHARS))
            else:
                unlisted += 1
        if message.role == "tool" and message.tool_call_id in names:
            name = names[message.tool_call_id]
            found = findings.setdefault(name, [])
            if len(found) < PER_TOOL:
                status = "error: " if message.is_error else ""
                found.append(one_line(status + message.text, FINDING_CHARS))
    return calls, findings, unlisted


def summarize_branch(entries: Sequence[Entry], note: str | None = None) -> CompactionSummary:
    """The summary of `entries` (an abandoned path, oldest first) with the client's `note`."""
    if not entries:
        return CompactionSummary(notes=note[:NOTE_CHARS] if note else None)
    requests = [
        message.text
        for message in (entry.message for entry in entries)
        if message is not None and message.role == "user" and message.text.strip()
    ]
    calls, findings, unlisted = _tool_activity(entries)
    rendered = [message for message in map(render_entry, entries) if message is not None]
    lines = [f"Abandoned branch of {len(entries)} entries."]
    if calls:
        counts = ", ".join(f"{name} ×{len(args)}" for name, args in calls.items())
        more = f" and {unlisted} more" if unlisted else ""
        lines.append(f"Tools called: {counts}{more}.")
    if note and note.strip():
        lines.append(note.strip()[:NOTE_CHARS])
    return CompactionSummary(
        original_request=one_line(requests[0], REQUEST_CHARS) if requests else None,
        current_request=one_line(requests[-1], REQUEST_CHARS) if requests else None,
        tool_calls=calls,
        key_findings=findings,
        tokens_compacted=sum(map(approximate_tokens, rendered)),
        entry_count=len(entries),
        time_span=_span(entries),
        notes="\n".join(lines),
    )


__all__ = ["NOTE_CHARS", "summarize_branch"]
