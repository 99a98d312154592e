"""Reading a session file's lines back into entries without ever losing one.

The header must be readable. After it, every line this version can read is loaded and every
other line is skipped (and reported) but left in the file: a newer rho may understand it.
A skipped Entry line that still names its `id` and `parent_id` becomes a *gap*: the path
walks through it to its parent, so the entries around an unreadable one stay connected.
Only an unterminated final fragment is a torn write, and it too stays on disk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from rho_kernel.session.entries import (
    Entry,
    Header,
    LeafMovedPayload,
    ResolutionChange,
    SessionError,
    parse_line,
)

PARSE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, RecursionError)
"""What parsing a hostile line may raise."""


@dataclass(frozen=True, slots=True)
class RawLine:
    """One non-blank line of a session file."""

    number: int
    data: bytes
    terminated: bool


@dataclass(slots=True)
class Replayed:
    """The lines after the header, replayed in file order."""

    entries: dict[str, Entry] = field(default_factory=dict)
    gaps: dict[str, str | None] = field(default_factory=dict)
    last_entry_id: str | None = None
    skipped: list[int] = field(default_factory=list)
    first_error: str = ""
    torn: bool = False

    def leaf(self) -> str | None:
        """The last Entry line's id, or the target of a LeafMoved entry that is the last."""
        leaf = self.last_entry_id
        entry = self.entries.get(leaf) if leaf is not None else None
        payload = entry.payload if entry is not None else None
        if isinstance(payload, LeafMovedPayload) and payload.to in self.entries:
            return payload.to
        return leaf


def brief(error: BaseException) -> str:
    """An error as one short line (pydantic's messages span several)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"


def split_lines(data: bytes) -> list[RawLine]:
    """The non-blank lines of `data` with their 1-based line numbers."""
    pieces = data.split(b"\n")
    last = len(pieces) - 1
    return [
        RawLine(number, raw, index < last)
        for index, (number, raw) in enumerate(enumerate(pieces, start=1))
        if raw.strip()
    ]


def first_line(reader: BinaryIO) -> RawLine | None:
    """The first non-blank line read from `reader` (None for a blank file)."""
    for number, raw in enumerate(reader, start=1):
        if raw.strip():
            return RawLine(number, raw.rstrip(b"\n"), raw.endswith(b"\n"))
    return None


def parse_header(path: Path, line: RawLine | None) -> Header:
    """The session header from the first non-blank line; SessionError when it is not one."""
    if line is None:
        raise SessionError(f"session file {path} has no header line")
    try:
        header = parse_line(line.data)
    except PARSE_ERRORS as error:
        raise SessionError(
            f"{path}: line {line.number}: unreadable session header: {brief(error)}"
        ) from error
    if not isinstance(header, Header):
        raise SessionError(f"{path}: line {line.number}: the first line is not a session header")
    try:
        header.check_supported()
    except SessionError as error:
        raise SessionError(f"{path}: {error}") from None
    return header


def replay(lines: list[RawLine]) -> Replayed:
    """Replay the lines after the header: of entries sharing an id the first wins,
    Resolution lines apply in file order, unreadable lines are skipped and counted."""
    result = Replayed()
    entries = result.entries
    for raw in lines:
        try:
            line = parse_line(raw.data)
        except PARSE_ERRORS as error:
            _skip(result, raw, error)
            continue
        if isinstance(line, Entry):
            entries.setdefault(line.id, line)
            result.last_entry_id = line.id
        elif isinstance(line, ResolutionChange):
            target = entries.get(line.entry)
            if target is not None:
                entries[line.entry] = target.model_copy(update={"resolution": line.resolution})
        # A repeated header or a line type from a newer rho is ignored.
    return result


def skipped_warning(path: Path, replayed: Replayed) -> str | None:
    """The one warning for a load that skipped lines, or None when none was skipped."""
    if not replayed.skipped:
        return None
    count = len(replayed.skipped)
    text = (
        f"{path}: skipped {count} unreadable line{'s' if count > 1 else ''} "
        f"(first: line {replayed.skipped[0]}: {replayed.first_error})"
    )
    if replayed.torn:
        text += "; the last line is an unfinished write"
    return text + "; the file is kept as it is"


def _skip(result: Replayed, raw: RawLine, error: BaseException) -> None:
    if not result.skipped:
        result.first_error = brief(error)
    result.skipped.append(raw.number)
    if not raw.terminated:
        result.torn = True
    gap = _gap(raw.data)
    if gap is not None:
        entry_id, parent_id = gap
        if entry_id not in result.entries:
            result.gaps.setdefault(entry_id, parent_id)
        result.last_entry_id = entry_id


def _gap(data: bytes) -> tuple[str, str | None] | None:
    """The (id, parent_id) of an unreadable Entry line, when it still says them."""
    try:
        record = json.loads(data)
    except PARSE_ERRORS:
        return None
    if not isinstance(record, dict) or record.get("type") != "Entry":
        return None
    entry_id, parent_id = record.get("id"), record.get("parent_id")
    if not isinstance(entry_id, str) or not (parent_id is None or isinstance(parent_id, str)):
        return None
    return entry_id, parent_id


__all__ = [
    "PARSE_ERRORS",
    "RawLine",
    "Replayed",
    "brief",
    "first_line",
    "parse_header",
    "replay",
    "skipped_warning",
    "split_lines",
]
