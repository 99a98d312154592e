"""The diff and fresh anchors edit_file reports after an edit.

Changed regions come from the splices themselves (not from comparing whole files line by
line, which would mark every line after an insertion as changed); within a region the old
and new lines are aligned with `difflib`. Rows carry hashline anchors: `- {n}#{HASH}:{old}`
with the old number and hash, `+ {n}#{HASH}:{new}` and context `  {n}#{HASH}:{line}` with
the new ones, three lines of context, hunks separated by `  ...`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from rho_kernel.security import KeyBlockLines
from rho_tools_fs.edit_document import Document, Splice, line_starts
from rho_tools_fs.hashline import format_hashline, split_lines

CONTEXT = 3
ANCHOR_CONTEXT = 5
#: Rows shown at most in the diff and in the fresh anchors; the rest is summarised.
MAX_ROWS = 200
#: `hidden(number, text)`: whether a line of the new text is shown as `[REDACTED]`.
HiddenLine = Callable[[int, str], bool]


def hidden_new_lines(
    doc: Document, new_blocks: KeyBlockLines, ordered: list[Splice], new_lines: list[str]
) -> HiddenLine:
    """Which lines of the edited text (`new_lines`, made by applying `ordered` to `doc`) to
    hide: those inside a key block of the new text, and those carried over unchanged from a
    line that was inside one before the edit (so removing a BEGIN line shows no key). Lines
    the edit wrote are judged by position, never by comparing them with hidden ones, which
    would tell whether a written line equals a hidden one."""
    if not doc.hidden:
        return lambda number, _text: number in new_blocks
    starts = line_starts(new_lines)
    written: list[tuple[int, int, int]] = []  # new [start, end) of each splice's text, shift
    shift = 0
    for splice in ordered:
        start = splice.start + shift
        shift += len(splice.text) - (splice.end - splice.start)
        written.append((start, start + len(splice.text), shift))
    firsts = [start for start, _end, _shift in written]

    def carried_hidden(number: int) -> bool:
        start = starts[number - 1]
        end = start + len(new_lines[number - 1])
        index = bisect_right(firsts, start) - 1
        for near in (index, index + 1):
            if 0 <= near < len(written) and written[near][0] < end and start < written[near][1]:
                return False  # the edit wrote (part of) this line
        old = start - (written[index][2] if index >= 0 else 0)
        return doc.line_index(old) + 1 in doc.hidden

    return lambda number, _text: number in new_blocks or carried_hidden(number)


def _nothing_hidden(_number: int, _text: str) -> bool:
    return False


@dataclass
class Region:
    """Changed lines, 0-based and inclusive: old `[old_first, old_last]`, new likewise."""

    old_first: int
    old_last: int
    new_first: int
    new_last: int


def _index(starts: list[int], count: int, offset: int) -> int:
    return max(0, min(bisect_right(starts, offset) - 1, count - 1))


def regions(doc: Document, ordered: list[Splice], new_lines: list[str]) -> list[Region]:
    """The changed line regions of applying `ordered` to `doc`, merged where they touch."""
    new_starts = line_starts(new_lines)
    found: list[Region] = []
    delta = 0
    for splice in ordered:
        new_start = splice.start + delta
        new_end = new_start + len(splice.text)
        delta += len(splice.text) - (splice.end - splice.start)
        region = Region(
            doc.line_index(splice.start),
            doc.line_index(splice.end),
            _index(new_starts, len(new_lines), new_start),
            _index(new_starts, len(new_lines), new_end) if new_lines else -1,
        )
        if not new_lines:
            region.new_first = 0
        last = found[-1] if found else None
        if last is not None and region.old_first <= last.old_last + 1:
            last.old_last = max(last.old_last, region.old_last)
            last.new_last = max(last.new_last, region.new_last)
        else:
            found.append(region)
    return [region for region in found if _trim(region, doc.lines, new_lines)]


def _trim(region: Region, old: list[str], new: list[str]) -> bool:
    """Drop unchanged lines from both ends of `region`; False if nothing is left."""
    while (
        region.old_first <= region.old_last
        and region.new_first <= region.new_last
        and old[region.old_last] == new[region.new_last]
    ):
        region.old_last -= 1
        region.new_last -= 1
    while (
        region.old_first <= region.old_last
        and region.new_first <= region.new_last
        and old[region.old_first] == new[region.new_first]
    ):
        region.old_first += 1
        region.new_first += 1
    return region.old_first <= region.old_last or region.new_first <= region.new_last


class _Rows:
    """Accumulates diff rows up to `MAX_ROWS`."""

    def __init__(self, width: int, doc: Document, hidden: HiddenLine) -> None:
        self.width = width
        self.rows: list[str] = []
        self.dropped = 0
        self.doc = doc
        self.hidden = hidden

    def add(self, mark: str, number: int, text: str) -> None:
        if len(self.rows) >= MAX_ROWS:
            self.dropped += 1
            return
        hidden = (number in self.doc.hidden) if mark == "-" else self.hidden(number, text)
        row = format_hashline(text, number, self.width, hidden=hidden)
        self.rows.append(f"{mark} {row}\n")

    def text(self) -> str:
        more = f"  ... ({self.dropped} more lines)\n" if self.dropped else ""
        return "".join(self.rows) + more


def _region_rows(out: _Rows, old: list[str], new: list[str], region: Region) -> None:
    before = old[region.old_first : region.old_last + 1]
    after = new[region.new_first : region.new_last + 1]
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for j in range(j1, j2):
                out.add(" ", region.new_first + j + 1, after[j])
            continue
        for i in range(i1, i2):
            out.add("-", region.old_first + i + 1, before[i])
        for j in range(j1, j2):
            out.add("+", region.new_first + j + 1, after[j])


def render_diff(
    doc: Document,
    new_lines: list[str],
    found: list[Region],
    hidden: HiddenLine = _nothing_hidden,
) -> str:
    """The `<diff>` body: hunks with context, separated by `  ...`; old lines in `doc.hidden`
    and new lines `hidden` says are shown as `[REDACTED]`, their anchors from their numbers
    alone (`format_hashline(..., hidden=True)`)."""
    out = _Rows(len(str(max(doc.line_count, len(new_lines), 1))), doc, hidden)
    shown_until = -1  # last new line index already shown
    for number, region in enumerate(found):
        start = max(region.new_first - CONTEXT, 0)
        if number and start > shown_until + 1:
            out.rows.append("  ...\n")
        for j in range(max(start, shown_until + 1), region.new_first):
            out.add(" ", j + 1, new_lines[j])
        _region_rows(out, doc.lines, new_lines, region)
        following = found[number + 1].new_first if number + 1 < len(found) else len(new_lines)
        stop = min(region.new_last + CONTEXT, len(new_lines) - 1)
        if following - region.new_last - 1 <= 2 * CONTEXT:
            stop = following - 1  # the gap to the next hunk is shown whole
        for j in range(region.new_last + 1, stop + 1):
            out.add(" ", j + 1, new_lines[j])
        shown_until = max(stop, region.new_last)
    return out.text()


def render_fresh_anchors(
    new_lines: list[str], found: list[Region], hidden: HiddenLine = _nothing_hidden
) -> str:
    """The `<fresh-anchors>` body: the new lines around each change with their anchors
    (those `hidden` says as `[REDACTED]`, anchored by their numbers alone)."""
    width = len(str(max(len(new_lines), 1)))
    windows: list[list[int]] = []
    for region in found:
        low = max(region.new_first - ANCHOR_CONTEXT, 0)
        high = min(region.new_last + ANCHOR_CONTEXT, len(new_lines) - 1)
        if windows and low <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], high)
        elif high >= low:
            windows.append([low, high])
    rows: list[str] = []
    total = 0
    for low, high in windows:
        if rows:
            rows.append("  ...\n")
        for j in range(low, high + 1):
            total += 1
            if total <= MAX_ROWS:
                text = new_lines[j]
                row = format_hashline(text, j + 1, width, hidden=hidden(j + 1, text))
                rows.append(f"  {row}\n")
    if total > MAX_ROWS:
        rows.append(f"  ... ({total - MAX_ROWS} more lines; read the file for their anchors)\n")
    return "".join(rows)


def new_lines_of(norm: str) -> list[str]:
    """The lines of the edited (normalised) text."""
    return split_lines(norm)


__all__ = [
    "CONTEXT",
    "MAX_ROWS",
    "HiddenLine",
    "Region",
    "hidden_new_lines",
    "new_lines_of",
    "regions",
    "render_diff",
    "render_fresh_anchors",
]
