"""Reading a session file's lines back into entries without ever losing one.

The header must be readable. After it, every line this version can read is loaded and every
other line is skipped (and reported) but left in the file: a newer rho may understand it.
A skipped Entry line that still names its `id` and `parent_id` becomes a *gap*: the path
walks through it to its parent, so the entries around an unreadable one stay connected.
Only an unterminated final fragment that is not complete JSON is a torn write; the session
moves it to a side file before it writes (`rho_kernel.session.torn`).

Lines rho wrote itself take a fast path (validated straight from their bytes); anything that
path rejects is parsed again the general way, which names the problem. Of lines sharing an
id the first is the entry: a later one is ignored, and does not move the leaf. After the
replay the tree is checked: entries whose parent is missing and cycles of parents (of any
length, an entry its own parent included) are repaired in memory without losing the path.
The member of a cycle written first, and an entry whose parent is missing, continue from the
entry that was the leaf when they were written (where rho appends), so a damaged last line
keeps the system message and the turns before it; only when that would close a cycle, or
nothing came before, is the entry read as a root. All of it, and entries of kinds or
resolutions this version does not know, is reported in the same one warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, NamedTuple

from rho_kernel.session.entries import (
    Entry,
    Header,
    LeafMovedPayload,
    Line,
    ResolutionChange,
    SessionError,
    UnknownPayload,
    UnknownResolution,
    parse_line,
)
from rho_kernel.session.estimates import Estimates, measure_into
from rho_kernel.session.problems import describe, quote_id
from rho_kernel.session.torn import is_torn

PARSE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, RecursionError)
"""What parsing a hostile line may raise."""

_ENTRY_PREFIX = b'{"type":"Entry",'


class RawLine(NamedTuple):
    """One non-blank line of a session file (a tuple: tens of thousands are made at once)."""

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
    unknown_lines: int = 0  # lines of a type this version does not know
    stray_resolutions: int = 0  # Resolution lines naming no entry read before them
    orphans: int = 0  # entries (or gaps) whose parent is neither an entry nor a gap
    cycles: list[str] = field(default_factory=list)  # where each cycle was cut
    forward: int = 0  # entries naming a parent not read before them
    duplicates: list[int] = field(default_factory=list)  # lines repeating an earlier id
    roots: int = 0  # repaired entries read as roots (no entry before them to continue)
    # For each entry naming a parent not read before it: the leaf when it was read.
    fallback: dict[str, str | None] = field(default_factory=dict)
    # The token estimate of every entry, made as it is read (rho_kernel.session.estimates).
    estimates: Estimates = field(default_factory=dict)

    def leaf(self) -> str | None:
        """The last Entry line's id, or the target of a LeafMoved entry that is the last."""
        leaf = self.last_entry_id
        entry = self.entries.get(leaf) if leaf is not None else None
        payload = entry.payload if entry is not None else None
        if isinstance(payload, LeafMovedPayload) and payload.to in self.entries:
            return payload.to
        return leaf


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
            f"{path}: line {line.number}: the session header cannot be read: "
            f"{describe(line.data, error).removeprefix('header: ')}"
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
    Resolution lines apply in file order, unreadable lines are skipped and counted. Every
    entry is estimated as it is read (`Replayed.estimates`), so that the context statistics
    of the session need no pass of their own."""
    result = Replayed()
    entries = result.entries
    estimates = result.estimates
    for raw in lines:
        try:
            line = _parse(raw.data)
        except PARSE_ERRORS as error:
            _skip(result, raw, error)
            continue
        if isinstance(line, Entry):
            if line.id in entries or line.id in result.gaps:
                result.duplicates.append(raw.number)  # the first is the entry: ignored
                continue
            parent = line.parent_id
            if parent is not None and parent not in entries:
                # A parent not read yet (or itself), or an unreadable line, which may
                # lead anywhere: the tree is checked for cycles after the replay.
                result.forward += 1
                result.fallback[line.id] = result.leaf()
            entries[line.id] = line
            measure_into(estimates, line)
            result.last_entry_id = line.id
        elif isinstance(line, ResolutionChange):
            target = entries.get(line.entry)
            if target is not None:
                changed = target.model_copy(update={"resolution": line.resolution})
                entries[line.entry] = changed
                measure_into(estimates, changed)
            else:
                result.stray_resolutions += 1
        elif line is None:
            result.unknown_lines += 1  # a line type from a newer rho: ignored
        # A repeated header is ignored.
    _repair_tree(result)
    return result


def _parse(data: bytes) -> Line | None:
    """`parse_line`, with the common case (an Entry line as rho writes it) validated
    straight from the bytes; whatever that path rejects goes the general way."""
    if data.startswith(_ENTRY_PREFIX):
        try:
            return Entry.model_validate_json(data)
        except PARSE_ERRORS:
            pass
    return parse_line(data)


def _repair_tree(result: Replayed) -> None:
    """Cut every cycle of parents and give each cut member, and each entry whose parent is
    missing, the parent it most likely had (in memory; the file is not changed)."""
    if not result.forward:
        return  # every parent was read before its children: no cycle, nothing missing
    entries, gaps = result.entries, result.gaps
    parents: dict[str, str | None] = {key: entry.parent_id for key, entry in entries.items()}
    for key, parent in gaps.items():
        parents.setdefault(key, parent)
    cuts = find_cycle_cuts(parents)
    result.cycles.extend(cuts)
    cut = set(cuts)
    for key in cuts:
        parents[key] = None
    orphans = {
        key for key, parent in parents.items() if parent is not None and parent not in parents
    }
    result.orphans = len(orphans)
    up = dict(parents)  # the forest, compressed while looking for roots
    # Entries, then unreadable ones, each in file order.
    for key in [key for key in parents if key in cut or key in orphans]:
        target = result.fallback.get(key)
        if target is None or target not in parents or _root(up, target) == key:
            target = None  # nothing before it, or it would close a cycle again
            result.roots += 1
        up[key] = target
        if target is None and key not in cut:
            continue  # an orphan left as it is: the tree reads it as a root
        entry = entries.get(key)
        if entry is not None:
            entries[key] = entry.model_copy(update={"parent_id": target})
        else:
            gaps[key] = target


def _root(up: dict[str, str | None], node: str) -> str:
    """The root of `node` in the forest `up` (a parent not in `up` ends a chain),
    compressing the chain it walked."""
    trail: list[str] = []
    parent = up.get(node)
    while parent is not None and parent in up:
        trail.append(node)
        node = parent
        parent = up[node]
    for member in trail:
        up[member] = node
    return node


def find_cycle_cuts(parents: dict[str, str | None]) -> list[str]:
    """One member of every cycle of parent links, the first in `parents`' order: cutting
    its link (making it a root) leaves a forest. Linear in the number of nodes."""
    settled: set[str] = set()
    cuts: list[str] = []
    order: dict[str, int] | None = None
    for start in parents:
        trail: list[str] = []
        on_trail: set[str] = set()
        node: str | None = start
        while node is not None and node in parents and node not in settled:
            if node in on_trail:
                cycle = trail[trail.index(node) :]
                if order is None:
                    order = {key: index for index, key in enumerate(parents)}
                cuts.append(min(cycle, key=order.__getitem__))
                break
            on_trail.add(node)
            trail.append(node)
            node = parents[node]
        settled.update(trail)
    return cuts


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def load_warning(path: Path, replayed: Replayed) -> str | None:
    """The one warning about everything a load could not take as it is, or None."""
    problems: list[str] = []
    if replayed.skipped:
        text = (
            f"skipped {_plural(len(replayed.skipped), 'unreadable line')} "
            f"(first: line {replayed.skipped[0]}: {replayed.first_error})"
        )
        if replayed.torn:
            text += (
                "; the last line is an unfinished write, moved to a side file next to the "
                "session before the next entry is written"
            )
        problems.append(text)
    if replayed.unknown_lines:
        problems.append(f"{_plural(replayed.unknown_lines, 'line')} of an unknown type (ignored)")
    entries = replayed.entries.values()
    kinds = sum(1 for entry in entries if isinstance(entry.payload, UnknownPayload))
    if kinds:
        problems.append(f"{_plural(kinds, 'entry')} of an unknown kind (kept, not sent)")
    resolutions = sum(1 for entry in entries if isinstance(entry.resolution, UnknownResolution))
    if resolutions:
        problems.append(f"{_plural(resolutions, 'unknown resolution')} (kept, not sent)")
    if replayed.stray_resolutions:
        problems.append(
            f"{_plural(replayed.stray_resolutions, 'resolution change')} for no earlier "
            "entry (ignored)"
        )
    if replayed.duplicates:
        lines = replayed.duplicates
        problems.append(
            f"{_plural(len(lines), 'line')} repeating an earlier entry's id (first: line "
            f"{lines[0]}; ignored, the first entry with the id is kept)"
        )
    if replayed.orphans:
        problems.append(f"{_plural(replayed.orphans, 'entry')} whose parent is missing")
    if replayed.cycles:
        shown = [quote_id(cut) for cut in replayed.cycles[:3]]
        cuts = ", ".join(shown) + (", …" if len(replayed.cycles) > 3 else "")
        problems.append(f"{_plural(len(replayed.cycles), 'cycle')} of parents (cut at {cuts})")
    if replayed.orphans or replayed.cycles:
        problems.append(_repair_note(replayed))
    if not problems:
        return None
    return f"{path}: " + "; ".join(problems) + "; the file is kept as it is"


def _repair_note(replayed: Replayed) -> str:
    """How the entries of broken links were placed in the tree."""
    repaired = replayed.orphans + len(replayed.cycles)
    if not replayed.roots:
        return "each continues from the entry before it in the file"
    if replayed.roots == repaired:
        return "read as roots"
    return f"{_plural(replayed.roots, 'entry')} read as roots, the rest continue from the entry before them in the file"


def _skip(result: Replayed, raw: RawLine, error: BaseException) -> None:
    if not result.skipped:
        result.first_error = describe(raw.data, error)
    result.skipped.append(raw.number)
    if not raw.terminated and is_torn(raw.data):
        result.torn = True
    gap = _gap(raw.data)
    if gap is None:
        return
    entry_id, parent_id = gap
    if entry_id in result.entries or entry_id in result.gaps:
        result.duplicates.append(raw.number)  # the first is the entry: ignored
        return
    if not (parent_id is None or parent_id in result.entries or parent_id in result.gaps):
        result.forward += 1  # (a parent of itself counts too)
        result.fallback[entry_id] = result.leaf()
    result.gaps[entry_id] = parent_id
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
    "find_cycle_cuts",
    "first_line",
    "load_warning",
    "parse_header",
    "replay",
    "split_lines",
]
