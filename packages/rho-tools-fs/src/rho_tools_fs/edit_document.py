"""A file's text as edits see it, and the splices that change it.

Edits address a *normalised* view of the file: its lines (as `split_lines` gives them, so as
read_file shows them) joined by `\\n`, with a final `\\n` when the file has one. A `Splice`
replaces a range of that view. Applying splices maps their ranges back onto the real text,
so bytes no edit touches — `\\r\\n` endings of a CRLF file, a missing final newline, mixed
endings — stay exactly as they were; the newlines an edit writes use the file's dominant
ending.
"""

from __future__ import annotations

import operator
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate, repeat

from rho_kernel.security import KeyBlockLines
from rho_tools_fs.hashline import shown_hash, split_lines


class EditError(Exception):
    """An edit cannot be applied; the message is the tool's error for the model."""


@dataclass(frozen=True, slots=True)
class Splice:
    """Replace `[start, end)` of the normalised text with `text` (newlines as `\\n`).

    `edit` is the 1-based number of the edit it comes from, `exact` whether that edit was an
    exact-match (`old_text`) edit.
    """

    start: int
    end: int
    text: str
    edit: int
    exact: bool = False


def line_starts(parts: list[str]) -> list[int]:
    """Offsets at which each of `parts` starts when they are joined with one separator char."""
    return [0, *accumulate(map(operator.add, map(len, parts), repeat(1)))]


@dataclass
class Document:
    """The decoded text of a file, its lines and the offsets that relate the two views.

    `hidden` holds the lines inside private key blocks: messages show them as `[REDACTED]`
    with an anchor hash of their number alone, and anchors are checked against that hash.
    """

    raw: str
    hidden: KeyBlockLines = field(default_factory=KeyBlockLines)
    lines: list[str] = field(init=False)
    norm: str = field(init=False)
    eol: str = field(init=False)
    trailing_newline: bool = field(init=False)
    norm_starts: list[int] = field(init=False)
    raw_starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        raw = self.raw
        self.lines = split_lines(raw)
        self.trailing_newline = raw.endswith("\n")
        self.norm = "\n".join(self.lines) + ("\n" if self.trailing_newline and self.lines else "")
        self.norm_starts = line_starts(self.lines)
        self.raw_starts = line_starts(raw.split("\n"))
        crlf = raw.count("\r\n")
        self.eol = "\r\n" if crlf * 2 > raw.count("\n") else "\n"

    @property
    def line_count(self) -> int:
        """Number of lines."""
        return len(self.lines)

    def shown_line(self, number: int) -> str:
        """1-based line `number` as messages show it (`[REDACTED]` inside a key block)."""
        return self.hidden.hide([self.lines[number - 1]], number)[0]

    def shown_hash(self, number: int) -> str:
        """The anchor hash of 1-based line `number` as shown and checked (from its number
        alone inside a key block: see `rho_tools_fs.hashline.shown_hash`)."""
        return shown_hash(self.lines[number - 1], number, self.hidden)

    def hidden_spans(self) -> list[tuple[int, int]]:
        """The normalised `[start, end)` ranges of the hidden lines, each with its ending."""
        count = len(self.lines)
        return [
            (self.line_start(first), self.line_start(min(last, count) + 1))
            for first, last in self.hidden.ranges
            if first <= count
        ]

    @property
    def shown_norm(self) -> str:
        """The normalised text as messages show it (hidden lines as `[REDACTED]`)."""
        if not self.hidden:
            return self.norm
        return self.hidden.hide_text(self.norm)

    def line_start(self, number: int) -> int:
        """Normalised offset where 1-based line `number` starts (`line_count + 1`: the end)."""
        if number > len(self.lines):
            return len(self.norm)
        return self.norm_starts[number - 1]

    def content_end(self, number: int) -> int:
        """Normalised offset just after the content of 1-based line `number` (before its ending)."""
        return self.norm_starts[number - 1] + len(self.lines[number - 1])

    def line_index(self, offset: int) -> int:
        """0-based index of the line holding normalised `offset` (clamped to the last line)."""
        index = bisect_right(self.norm_starts, offset) - 1
        return max(0, min(index, len(self.lines) - 1))

    def to_raw(self, offset: int) -> int:
        """The offset in `raw` of normalised `offset` (a line's ending maps to its start)."""
        if offset >= len(self.norm):
            return len(self.raw)
        index = bisect_right(self.norm_starts, offset) - 1
        return self.raw_starts[index] + (offset - self.norm_starts[index])


def check_overlaps(splices: list[Splice]) -> list[Splice]:
    """`splices` in application order; raises `EditError` if two of them touch the same text.

    Ranges that only meet (one ends where the next starts) do not overlap; insertions at the
    same point are applied in the order the edits were given.
    """
    ordered = sorted(splices, key=lambda s: (s.start, s.end, s.edit))
    reach = -1
    owner: Splice | None = None
    for splice in ordered:
        if owner is not None and reach > splice.start:
            first, second = sorted((owner.edit, splice.edit))
            raise EditError(
                f"edit_file: edits overlap (edit {first} and edit {second} change the same "
                "text); combine them into one edit"
            )
        if splice.end >= reach:
            reach, owner = splice.end, splice
    return ordered


@dataclass(frozen=True)
class Applied:
    """The result of applying splices: new raw and normalised text, and the raw-offset splices."""

    raw: str
    norm: str
    raw_ranges: list[tuple[int, int, str]]


def apply_splices(doc: Document, ordered: list[Splice]) -> Applied:
    """Apply already ordered, non-overlapping splices to `doc`."""
    raw_parts: list[str] = []
    norm_parts: list[str] = []
    raw_ranges: list[tuple[int, int, str]] = []
    raw_at = 0
    norm_at = 0
    for splice in ordered:
        start, end = doc.to_raw(splice.start), doc.to_raw(splice.end)
        text = splice.text.replace("\n", doc.eol) if doc.eol != "\n" else splice.text
        raw_parts += (doc.raw[raw_at:start], text)
        norm_parts += (doc.norm[norm_at : splice.start], splice.text)
        raw_ranges.append((start, end, text))
        raw_at, norm_at = end, splice.end
    raw_parts.append(doc.raw[raw_at:])
    norm_parts.append(doc.norm[norm_at:])
    return Applied("".join(raw_parts), "".join(norm_parts), raw_ranges)


__all__ = [
    "Applied",
    "Document",
    "EditError",
    "Splice",
    "apply_splices",
    "check_overlaps",
    "line_starts",
]
