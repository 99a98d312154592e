"""The mechanical strategy: a deterministic, phase-aware summary of compacted entries.

Entries are walked in order. Each tool call lands in a phase segment (exploration,
execution, verification, conclusion) chosen by the tool's declared phase, with a short
summary of its arguments and a finding from its result; user messages land in the segment
they were written in; a final text reply concludes. Earlier summaries among the entries are
folded in, so a second compaction keeps what the first one said.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rho_kernel.compaction.strategies import MechanicalStrategy
from rho_kernel.loop.guards import PhaseTracker
from rho_kernel.session.entries import (
    BranchSummaryPayload,
    CompactionPayload,
    CompactionPhase,
    CompactionSummary,
    CustomMessagePayload,
    Entry,
)
from rho_kernel.tools.base import Phase

MAX_SEGMENTS = 40
MAX_ARGS_PER_TOOL = 8
MAX_FINDINGS_PER_TOOL = 3
MAX_USER_MESSAGES = 3
ARG_CHARS = 80
FINDING_CHARS = 150
USER_CHARS = 200
REQUEST_CHARS = 2000
NOTES_CHARS = 3000
REPLY_KEY = "reply"

_TAG = re.compile(r"\s*</?[\w:.-]+>\s*$")

#: Argument names that say best what a call was about, most telling first.
_KEY_ARGUMENTS = ("path", "paths", "file", "command", "cmd", "pattern", "query", "url", "name")


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with `…`."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def argument_summary(raw: str) -> str:
    """The telling part of a call's JSON arguments (its path, command, pattern …)."""
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return clip(raw, ARG_CHARS)
    if not isinstance(arguments, dict):
        return clip(raw, ARG_CHARS)
    for key in _KEY_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return clip(value, ARG_CHARS)
        if isinstance(value, list) and value:
            return clip(", ".join(str(item) for item in value), ARG_CHARS)
    if not arguments:
        return ""
    return clip(json.dumps(arguments, ensure_ascii=False, sort_keys=True), ARG_CHARS)


def finding(output: str, is_error: bool) -> str:
    """A result in at most 150 characters: its first line with content (a line that is only
    a framing tag such as `<context>` does not count), and how many lines there were."""
    lines = [line for line in output.splitlines() if line.strip() and not _TAG.match(line)]
    if not lines:
        return "error" if is_error else ""
    count = f" ({len(lines)} lines)" if len(lines) > 1 else ""
    prefix = "error: " if is_error else ""
    return prefix + clip(lines[0], FINDING_CHARS - len(prefix) - len(count)) + count


@dataclass(slots=True)
class _Segment:
    """A phase segment being built: per tool, argument summaries with counts, and findings."""

    phase: str
    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: dict[str, list[str]] = field(default_factory=dict)
    users: list[str] = field(default_factory=list)

    def add_call(self, tool: str, argument: str, result: str) -> None:
        counts = self.calls.setdefault(tool, {})
        counts[argument] = counts.get(argument, 0) + 1
        self.add_finding(tool, result)

    def add_finding(self, key: str, result: str) -> None:
        if result:
            kept = self.findings.setdefault(key, [])
            kept.append(result)
            del kept[:-MAX_FINDINGS_PER_TOOL]

    def record(self) -> CompactionPhase:
        calls: dict[str, list[str]] = {}
        for tool, counts in self.calls.items():
            items = [f"{arg} (×{n})" if n > 1 else arg for arg, n in counts.items() if arg]
            if len(items) > MAX_ARGS_PER_TOOL:
                hidden = len(items) - MAX_ARGS_PER_TOOL + 1
                items = [*items[: MAX_ARGS_PER_TOOL - 1], f"… +{hidden} more"]
            calls[tool] = items
        return CompactionPhase(
            phase=self.phase,
            tool_calls=calls,
            key_findings={tool: list(items) for tool, items in self.findings.items()},
            user_messages=self.users[-MAX_USER_MESSAGES:],
        )


class _Walker:
    """Walks compacted entries once, building the segments and the requests."""

    def __init__(self, tool_phases: Mapping[str, str | None]) -> None:
        self.tool_phases = tool_phases
        self.tracker = PhaseTracker()
        self.folded: list[CompactionPhase] = []
        self.segments: list[_Segment] = []
        self.calls: dict[str, tuple[str, str]] = {}  # call id -> (tool, argument summary)
        self.original: str | None = None
        self.current: str | None = None
        self.notes: list[str] = []

    def segment(self, phase: str) -> _Segment:
        if not self.segments or self.segments[-1].phase != phase:
            self.segments.append(_Segment(phase))
        return self.segments[-1]

    def here(self) -> _Segment:
        current = self.tracker.current
        return self.segment(str(current) if current is not None else Phase.EXPLORATION.value)

    def request(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if self.original is None:
            self.original = clip(text, REQUEST_CHARS)
        self.current = clip(text, REQUEST_CHARS)

    def fold(self, summary: CompactionSummary) -> None:
        """Carry an earlier summary over (its segments come before this walk's)."""
        if summary.original_request and self.original is None:
            self.original = summary.original_request
        if summary.current_request:
            self.current = summary.current_request
        self.folded.extend(self._flush())
        self.folded.extend(summary.phases)
        if not summary.phases and (summary.tool_calls or summary.key_findings):
            self.folded.append(
                CompactionPhase(
                    phase="", tool_calls=summary.tool_calls, key_findings=summary.key_findings
                )
            )
        if summary.notes:
            self.notes.append(summary.notes)

    def _flush(self) -> list[CompactionPhase]:
        records = [segment.record() for segment in self.segments]
        self.segments = []
        return records

    def visit(self, entry: Entry) -> None:
        payload = entry.payload
        if isinstance(payload, CompactionPayload | BranchSummaryPayload):
            self.fold(payload.summary)
            return
        if isinstance(payload, CustomMessagePayload):
            self.here().users.append(clip(payload.text, USER_CHARS))
            return
        message = entry.message
        if message is None:
            return
        if message.role == "user":
            if self.tracker.current is Phase.CONCLUSION:
                self.tracker = PhaseTracker()  # answered: the next message starts a new task
            self.request(message.text)
            self.here().users.append(clip(message.text, USER_CHARS))
        elif message.role == "assistant":
            for call in message.tool_calls or ():
                self.calls[call.id] = (call.function.name, argument_summary(call.arguments))
            if not message.tool_calls and message.text.strip():
                self.tracker.conclude()
                self.here().add_finding(REPLY_KEY, clip(message.text, FINDING_CHARS))
        elif message.role == "tool":
            tool, argument = self.calls.get(message.tool_call_id or "", ("tool", ""))
            self.tracker.record(_phase(self.tool_phases.get(tool)))
            self.here().add_call(tool, argument, finding(message.text, bool(message.is_error)))

    def phases(self) -> tuple[list[CompactionPhase], int]:
        """Every segment (folded first), the oldest dropped beyond `MAX_SEGMENTS`."""
        records = [*self.folded, *self._flush()]
        dropped = max(0, len(records) - MAX_SEGMENTS)
        return records[dropped:], dropped


def _phase(value: str | None) -> Phase | None:
    try:
        return Phase(value) if value else None
    except ValueError:
        return None


def _merge(records: Sequence[CompactionPhase], attribute: str) -> dict[str, list[str]]:
    merged: dict[str, list[str]] = {}
    for record in records:
        for tool, items in getattr(record, attribute).items():
            merged.setdefault(tool, []).extend(items)
    return {tool: items[-MAX_ARGS_PER_TOOL:] for tool, items in merged.items()}


def mechanical_summary(
    entries: Sequence[Entry],
    tool_phases: Mapping[str, str | None] | None = None,
    *,
    max_tokens: int = 0,
    estimate: Callable[[CompactionSummary], int] | None = None,
) -> CompactionSummary:
    """The deterministic summary of `entries` (oldest first).

    With `max_tokens` and `estimate`, the oldest phase segments are dropped until the
    rendered summary fits (noted in `notes`). Counts and the time span are left at 0: the
    compactor sets them.
    """
    walker = _Walker(tool_phases or {})
    for entry in entries:
        walker.visit(entry)
    phases, dropped = walker.phases()
    summary = _build(walker, phases, dropped)
    if max_tokens > 0 and estimate is not None:
        while len(phases) > 1 and estimate(summary) > max_tokens:
            phases = phases[1:]
            dropped += 1
            summary = _build(walker, phases, dropped)
    return summary


def _build(walker: _Walker, phases: list[CompactionPhase], dropped: int) -> CompactionSummary:
    carried = "\n".join(walker.notes)
    if len(carried) > NOTES_CHARS:  # the most recent notes matter most
        carried = "…" + carried[-(NOTES_CHARS - 1) :]
    notes = [carried] if carried else []
    if dropped:
        notes.insert(0, f"({dropped} older phase segments truncated; the session file has them)")
    return CompactionSummary(
        original_request=walker.original,
        current_request=walker.current,
        tool_calls=_merge(phases, "tool_calls"),
        key_findings=_merge(phases, "key_findings"),
        phases=phases,
        notes="\n".join(notes) or None,
    )


__all__ = [
    "MechanicalStrategy",
    "argument_summary",
    "clip",
    "finding",
    "mechanical_summary",
]
