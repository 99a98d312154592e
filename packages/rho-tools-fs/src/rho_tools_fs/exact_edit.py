"""Exact-match edits: `{old_text, new_text}`, each `old_text` found exactly once.

Every `old_text` is matched against the file as read (never against the result of another
edit), in the normalised view of `rho_tools_fs.edit_document`: a `\\r\\n` in the file matches a
`\\n` in `old_text`, so text copied from read_file matches a CRLF file too.

An occurrence that touches a line shown as `[REDACTED]` (inside a private key block) does
not count: such lines are edited by their anchors, and whether `old_text` is found never
depends on what they hide.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from rho_kernel.security import REDACTED
from rho_tools_fs.edit_document import Document, EditError, Splice

#: Characters of `old_text` quoted in an error.
QUOTE_CHARS = 80
_REGEX_TOKENS = ("\\s*", "\\s+", "\\d+", "\\d*", "\\w+", "\\w*", "\\n", "\\t", "\\r", ".+", ".*")
_HASHLINE_PREFIX = re.compile(r"^\s*\d+#[A-Z]{4}:", re.MULTILINE)
_WHITESPACE = re.compile(r"\s+")
_MAX_LISTED = 5


def debug_quote(text: str) -> str:
    """`text` quoted with escapes, as Rust's `{:?}` shows a string."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F or 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _shown(old_text: str) -> str:
    if len(old_text) <= QUOTE_CHARS:
        return debug_quote(old_text)
    return debug_quote(old_text[:QUOTE_CHARS]) + "…"


def _not_found_hint(doc: Document, old: str) -> str:
    if doc.hidden and REDACTED in old:
        return (
            "Hint: lines shown as [REDACTED] (a private key) cannot be matched by old_text; "
            "edit them with a hashline edit by the anchors read_file shows for them."
        )
    if _HASHLINE_PREFIX.search(old):
        return (
            "Hint: old_text contains read_file's line anchors (like '12#ABCD:'), which are not "
            "part of the file. Leave them out, or use a hashline edit with those anchors."
        )
    if "<\\context" in old:
        return (
            "Hint: read_file shows '<context' inside a file as '<\\context'; the file itself "
            "has no backslash there. Leave it out of old_text."
        )
    tokens = [token for token in _REGEX_TOKENS if token in old]
    if tokens:
        return (
            "Hint: old_text is matched literally, not as a regular expression, and it contains "
            + ", ".join(tokens)
            + ". Give the exact text of the file."
        )
    squeezed = _WHITESPACE.sub(" ", old).strip()
    if squeezed and squeezed in _WHITESPACE.sub(" ", doc.shown_norm):
        return (
            "Hint: the text is in the file but with different whitespace or indentation; "
            "copy it exactly (read_file shows the file as it is)."
        )
    return (
        "Hint: old_text must match the file exactly, including whitespace and indentation. "
        "Re-read the file and copy the text without the line anchors ('12#ABCD:') and "
        "without the <context> tags."
    )


def check_strings(index: int, edit: dict[str, Any]) -> tuple[str, str]:
    """The old and new text of exact-match edit number `index` (1-based), line endings
    normalised; raises `EditError` when one is missing, not a string, or old_text empty."""
    for key in ("old_text", "new_text"):
        if key not in edit or edit[key] is None:
            raise EditError(f"edit_file: edit {index} missing '{key}'")
        if not isinstance(edit[key], str):
            raise EditError(f"edit_file: edit {index}: '{key}' must be a string")
    old = edit["old_text"].replace("\r\n", "\n")
    if not old:
        raise EditError(f"edit_file: edit {index}: old_text is empty")
    return old, edit["new_text"].replace("\r\n", "\n")


def _occurrences(doc: Document, old: str, start: int) -> list[int]:
    """Where `old` starts in `doc` from `start` on (overlapping ones too), leaving out those
    that touch a hidden line."""
    # The spans are in order and disjoint: only the last one that starts before an
    # occurrence's end can touch it.
    spans = doc.hidden_spans()
    starts = [span_start for span_start, _end in spans]
    positions = []
    at = doc.norm.find(old, start)
    while at >= 0:
        index = bisect_left(starts, at + len(old)) - 1
        if index < 0 or spans[index][1] <= at:
            positions.append(at)
        at = doc.norm.find(old, at + 1)
    return positions


def _first(doc: Document, old: str) -> tuple[int, bool]:
    """Where `old` first occurs (-1: nowhere) and whether it occurs again."""
    if doc.hidden:
        positions = _occurrences(doc, old, 0)
        return (positions[0] if positions else -1), len(positions) > 1
    start = doc.norm.find(old)
    return start, start >= 0 and doc.norm.find(old, start + 1) >= 0


def to_splice(doc: Document, index: int, edit: dict[str, Any], shown_path: str) -> Splice:
    """Find exact-match edit number `index` (1-based) in `doc` and turn it into a splice."""
    old, new = check_strings(index, edit)
    start, again = _first(doc, old)
    if start < 0:
        raise EditError(
            f"edit_file: old_text not found in `{shown_path}`: {_shown(edit['old_text'])}\n"
            + _not_found_hint(doc, old)
        )
    if again:
        positions = _occurrences(doc, old, start)
        listed = ", ".join(str(doc.line_index(at) + 1) for at in positions[:_MAX_LISTED])
        more = ", …" if len(positions) > _MAX_LISTED else ""
        raise EditError(
            f"edit_file: old_text is ambiguous ({len(positions)} matches) in `{shown_path}`: "
            f"{_shown(edit['old_text'])}\nHint: it occurs at lines {listed}{more}; include "
            "more of the surrounding text to make it unique."
        )
    return Splice(start, start + len(old), new, index, exact=True)


__all__ = ["QUOTE_CHARS", "check_strings", "debug_quote", "to_splice"]
