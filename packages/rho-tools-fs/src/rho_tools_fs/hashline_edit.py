"""Hashline edits: `{op, pos, end?, lines}` addressed by `{line}#{HASH}` anchors.

An anchor must still name the line it was taken from. If the hash does not match the line
at that number, the anchored content is looked for within five lines either way (the file
may have moved under it); it is used only if found there exactly once. Otherwise the edit
is refused with the current anchors around it — a line whose content changed is never
edited on the strength of its number alone. `end` anchors are checked the same way.

A line shown as `[REDACTED]` (inside a private key block) is addressed by the anchor shown
for it (`Document.shown_hash`, from its number alone) and is never a relocation target, so
whether an anchor is taken, relocated or refused never depends on the hidden content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rho_tools_fs.edit_document import Document, EditError, Splice
from rho_tools_fs.hashline import format_hashline, line_hash, line_hashes

OPS = ("replace", "append", "prepend", "delete")
#: How far (in lines, either way) a stale anchor's content is looked for.
SEARCH_RADIUS = 5
# `12#ABCD`, also as copied from a read_file row (`  12#ABCD:content`).
_ANCHOR = re.compile(r"\s*(\d{1,9})#([^\s:]+)(?::(.*))?", re.DOTALL)
#: Lines elsewhere in the file named when a stale anchor's line moved far.
_MOVED_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Anchor:
    """A parsed `{line}#{hash}` anchor."""

    line: int
    hash: str
    #: The content copied with the anchor (`12#ABCD:content`), if any: what the line was.
    content: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.line}#{self.hash}"


def parse_anchor(value: object) -> Anchor | None:
    """The anchor in `value`, or None if it is not one."""
    if not isinstance(value, str):
        return None
    match = _ANCHOR.fullmatch(value)
    if match is None or int(match.group(1)) < 1:
        return None
    return Anchor(int(match.group(1)), match.group(2).upper(), match.group(3))


def _high_information(line: str) -> bool:
    """Content-hashed and long enough that an equal hash nearby means the same line."""
    return len(line.strip()) >= 4 and any(char.isalnum() for char in line)


def _fresh_rows(doc: Document, line: int) -> str:
    """The current anchors of the lines around `line`, as read_file shows them (aligned)."""
    low, high = max(1, line - 3), min(doc.line_count, line + 3)
    width = len(str(high))
    rows = [
        format_hashline(doc.lines[n - 1], n, width, hidden=n in doc.hidden)
        for n in range(low, high + 1)
    ]
    return "\n".join(rows)


def _expected(doc: Document, anchor: Anchor) -> str:
    """What the anchor stood for: the content copied with it when that content has the
    anchor's hash, else only the hash (the line it was taken from is not known)."""
    content = anchor.content
    if anchor.line in doc.hidden:
        return f"{anchor} (not the anchor shown for this hidden line)"
    if (
        content is not None
        and anchor.line not in doc.hidden
        and "\n" not in content
        and line_hash(content, anchor.line) == anchor.hash
    ):
        return f"{anchor}:{content}"
    return f"{anchor} (the hash line {anchor.line} had when it was read; its content then is not known)"


def _elsewhere(doc: Document, anchor: Anchor) -> list[int]:
    """Lines anywhere in the file whose content has the anchor's hash (a far move)."""
    hashes = line_hashes(doc.lines)
    return [
        number
        for number, (text, hash_) in enumerate(zip(doc.lines, hashes, strict=True), 1)
        if hash_ == anchor.hash
        and number not in doc.hidden
        and abs(number - anchor.line) > SEARCH_RADIUS
        and _high_information(text)
    ]


def _what_changed(doc: Document, anchor: Anchor, current: str, crowded: bool) -> str:
    """One sentence on what happened to the line the anchor was taken from."""
    if anchor.line in doc.hidden:  # its anchor comes from its number: nothing changed
        return (
            f"Line {anchor.line} is hidden (a private key's line): address it by the anchor "
            f"shown for it, {anchor.line}#{current}."
        )
    changed = (
        f"Line {anchor.line} changed since it was read (its hash was {anchor.hash}, "
        f"it is {current} now)"
    )
    if crowded:
        return f"{changed}; its old content is now on more than one line nearby."
    moved = _elsewhere(doc, anchor)
    if not moved:
        return f"{changed}; no line within {SEARCH_RADIUS} lines has its old hash."
    where = ", ".join(str(number) for number in moved[:_MOVED_SHOWN])
    more = f" and {len(moved) - _MOVED_SHOWN} more" if len(moved) > _MOVED_SHOWN else ""
    return (
        f"{changed}; a line with its old hash is now at line{'s' if len(moved) > 1 else ''} "
        f"{where}{more}, farther than {SEARCH_RADIUS} lines: re-read the file."
    )


def _mismatch(
    doc: Document, anchor: Anchor, label: str, detail: str, *, crowded: bool = False
) -> EditError:
    current = doc.shown_hash(anchor.line)
    content = doc.shown_line(anchor.line)
    return EditError(
        f"edit_file: hash mismatch at {label} {anchor} and {detail}\n"
        f"Expected line:  {_expected(doc, anchor)}\n"
        f"Actual line:    {anchor.line}#{current}:{content}\n"
        f"{_what_changed(doc, anchor, current, crowded)}\n\n"
        f"Fresh hashes around line {anchor.line}:\n{_fresh_rows(doc, anchor.line)}\n\n"
        f"Use updated anchor {anchor.line}#{current} to retry."
    )


def resolve(doc: Document, anchor: Anchor, label: str = "anchor") -> tuple[int, str | None]:
    """The line `anchor` names now, and a note if it had to be relocated."""
    if anchor.line > doc.line_count:
        raise EditError(
            f"edit_file: {label} line {anchor.line} is out of range "
            f"(file has {doc.line_count} lines)"
        )
    if doc.shown_hash(anchor.line) == anchor.hash:
        return anchor.line, None
    found = []
    for distance in range(1, SEARCH_RADIUS + 1):
        for line in (anchor.line + distance, anchor.line - distance):
            if 1 <= line <= doc.line_count and line not in doc.hidden:
                text = doc.lines[line - 1]
                if _high_information(text) and line_hash(text, line) == anchor.hash:
                    found.append((line, distance))
    if not found:
        raise _mismatch(doc, anchor, label, "no similar content found nearby")
    if len(found) > 1:
        where = ", ".join(str(line) for line, _ in sorted(found))
        detail = f"its content appears more than once nearby ({where})"
        raise _mismatch(doc, anchor, label, detail, crowded=True)
    line, distance = found[0]
    note = f"anchor {anchor} resolved to {line}#{anchor.hash} (neighborhood search, ±{distance})"
    return line, note


def _new_lines(index: int, edit: dict[str, Any], op: str) -> list[str]:
    if "lines" not in edit or edit["lines"] is None:
        if op == "delete":
            return []
        raise EditError(f"edit_file: edit {index} missing 'lines'")
    value = edit["lines"]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise EditError(f"edit_file: edit {index}: 'lines' must be an array of strings")
    # An element holding line breaks stands for several lines.
    return [line for item in value for line in item.replace("\r\n", "\n").split("\n")]


@dataclass(frozen=True)
class HashlineEdit:
    """A validated hashline edit (anchors parsed, not yet resolved)."""

    index: int
    op: str
    pos: Anchor
    end: Anchor | None
    lines: list[str]


def validate(index: int, edit: dict[str, Any]) -> HashlineEdit:
    """Check the shape of hashline edit number `index` (1-based)."""
    op = edit.get("op")
    if op not in OPS:
        raise EditError(
            f"edit_file: invalid op '{op}' (expected replace, append, prepend or delete)"
        )
    if "pos" not in edit:
        raise EditError(f"edit_file: edit {index} missing 'pos'")
    pos = parse_anchor(edit["pos"])
    if pos is None:
        raise EditError(
            f"edit_file: edit {index} invalid anchor '{edit['pos']}' (expected e.g. 12#ABCD)"
        )
    end = None
    if edit.get("end") is not None:
        end = parse_anchor(edit["end"])
        if end is None:
            raise EditError(
                f"edit_file: edit {index} invalid anchor '{edit['end']}' (expected e.g. 12#ABCD)"
            )
        if op in ("append", "prepend"):
            raise EditError(f"edit_file: edit {index}: 'end' is only valid with replace or delete")
    lines = _new_lines(index, edit, op)
    if op in ("append", "prepend") and not lines:
        raise EditError(f"edit_file: edit {index}: 'lines' is empty; nothing to {op}")
    return HashlineEdit(index, op, pos, end, lines)


def to_splice(doc: Document, edit: HashlineEdit, notes: list[str]) -> Splice:
    """Resolve the anchors of `edit` against `doc` and turn it into a splice."""
    for anchor, label in ((edit.pos, "anchor"), (edit.end, "end anchor")):
        if anchor is not None and anchor.line > doc.line_count:
            raise EditError(
                f"edit_file: {label} line {anchor.line} is out of range "
                f"(file has {doc.line_count} lines)"
            )
    first, note = resolve(doc, edit.pos)
    if note:
        notes.append(note)
    last = first
    if edit.end is not None:
        last, note = resolve(doc, edit.end, "end anchor")
        if note:
            notes.append(note)
        if last < first:
            raise EditError(
                f"edit_file: edit {edit.index}: end anchor {edit.end} is before pos {edit.pos}"
            )
    text = "\n".join(edit.lines)
    if edit.op == "append":
        at = doc.content_end(first)
        return Splice(at, at, "\n" + text, edit.index)
    if edit.op == "prepend":
        at = doc.line_start(first)
        return Splice(at, at, text + "\n", edit.index)
    if edit.op == "replace" and (edit.lines or edit.end is None):
        # A single line replaced by no lines becomes an empty line (as in rho's original).
        return Splice(doc.line_start(first), doc.content_end(last), text, edit.index)
    # delete (or replace of a range by nothing): remove the lines with their endings.
    if last < doc.line_count or doc.trailing_newline:
        return Splice(doc.line_start(first), doc.line_start(last + 1), "", edit.index)
    start = doc.content_end(first - 1) if first > 1 else 0
    return Splice(start, len(doc.norm), "", edit.index)


__all__ = [
    "OPS",
    "SEARCH_RADIUS",
    "Anchor",
    "HashlineEdit",
    "parse_anchor",
    "resolve",
    "to_splice",
    "validate",
]
