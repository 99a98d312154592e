"""Redacting a file with its whole context: line for line, for previews, diffs and editors.

A diff shows a few lines of a file: a hunk inside a private key holds neither its BEGIN nor
its END line, and a JSON value may sit on the line after its name. So every text that shows
a file's change is redacted from the whole files: `redact_file_text` redacts a whole text
keeping its lines (a key block's lines each become `[REDACTED]`), `redact_file_pair` does it
for two versions of a file (a line hidden in one is hidden in the other), and
`redact_unified_diff` shows each line of a unified diff as the redacted whole file shows it,
found by the line numbers of the diff's hunks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rho_kernel.security.redaction import REDACTED

if TYPE_CHECKING:
    from rho_kernel.security.redaction import Redactor

#: Past this many characters a file is not redacted whole: its diff lines are redacted alone.
MAX_CONTEXT_CHARS = 8 << 20

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def redact_file_text(redactor: Redactor, text: str) -> str:
    """`text` redacted with as many lines as it has (see `Redactor.redact_file`)."""
    if not redactor.enabled or not text:
        return text
    redacted = redactor._redact(text, None, keep_lines=True)
    if redacted.count("\n") == text.count("\n"):
        return redacted
    # A custom pattern matched across lines: each line alone, key lines still hidden.
    from rho_kernel.security.key_blocks import KeyBlockLines

    hidden = KeyBlockLines.of(text)
    return "\n".join(redactor.redact(line) for line in hidden.hide(text.split("\n")))


def redact_file_pair(redactor: Redactor, old: str, new: str) -> tuple[str, str]:
    """`old` and `new` redacted as `redact_file_text` does, each line hidden in one version
    also hidden where the other holds it unchanged."""
    if not redactor.enabled:
        return old, new
    old_lines, new_lines = old.split("\n"), new.split("\n")
    old_shown = redact_file_text(redactor, old).split("\n")
    new_shown = redact_file_text(redactor, new).split("\n")
    hidden: dict[str, str] = {}
    for lines, shown in ((old_lines, old_shown), (new_lines, new_shown)):
        for line, redacted in zip(lines, shown, strict=True):
            if line != redacted:
                hidden[line] = _more_hidden(hidden.get(line, line), redacted)
    if hidden:
        old_shown = [
            hidden.get(line, shown) for line, shown in zip(old_lines, old_shown, strict=True)
        ]
        new_shown = [
            hidden.get(line, shown) for line, shown in zip(new_lines, new_shown, strict=True)
        ]
    return "\n".join(old_shown), "\n".join(new_shown)


def _more_hidden(first: str, second: str) -> str:
    """Of two redactions of one line, the one that leaves less of it."""
    return min(first, second, key=lambda shown: len(shown.replace(REDACTED, "")))


def redact_unified_diff(redactor: Redactor, diff: str, old: str | None, new: str | None) -> str:
    """`diff` (unified, from `old` to `new`) with each of its lines as the redacted whole
    file shows it; a line the files do not hold at its number (a file changed since, or not
    given) is redacted alone. The diff's other lines are redacted as text."""
    if not redactor.enabled or not diff:
        return diff
    sides = _sides(redactor, old, new)
    out: list[str] = []
    old_no = new_no = left_old = left_new = 0
    for line in _lines(diff):
        hunk = _HUNK.match(line) if line.startswith("@@") else None
        if hunk is not None:
            old_no, left_old = int(hunk.group(1)), int(hunk.group(2) or 1)
            new_no, left_new = int(hunk.group(3)), int(hunk.group(4) or 1)
            heading = line[hunk.end() :]
            out.append(line[: hunk.end()] + _heading(redactor, heading, old_no, sides[0]))
            continue
        mark = line[:1]
        if (left_old or left_new) and mark in (" ", "-", "+"):
            numbers = (old_no if mark != "+" else 0, new_no if mark != "-" else 0)
            out.append(mark + _shown(redactor, line[1:], numbers, sides))
            old_no, left_old = (old_no + 1, left_old - 1) if mark != "+" else (old_no, left_old)
            new_no, left_new = (new_no + 1, left_new - 1) if mark != "-" else (new_no, left_new)
            continue
        out.append(redactor.redact(line))
    return "".join(out)


_Side = tuple[list[str], list[str]] | None


def _sides(redactor: Redactor, old: str | None, new: str | None) -> tuple[_Side, _Side]:
    """Each version's (lines, lines as shown), or None when it is not known or too large."""
    usable = [
        text if text is not None and len(text) <= MAX_CONTEXT_CHARS else None for text in (old, new)
    ]
    shown = redact_file_pair(redactor, usable[0] or "", usable[1] or "")
    return (
        None if usable[0] is None else (usable[0].split("\n"), shown[0].split("\n")),
        None if usable[1] is None else (usable[1].split("\n"), shown[1].split("\n")),
    )


def _shown(
    redactor: Redactor, content: str, numbers: tuple[int, int], sides: tuple[_Side, _Side]
) -> str:
    """A diff line's `content` (with its line break) as the whole files show it."""
    body = content[:-1] if content.endswith("\n") else content
    ending = content[len(body) :]
    matched = False
    for number, side in zip(numbers, sides, strict=True):
        if not number or side is None or number > len(side[0]) or side[0][number - 1] != body:
            continue
        matched = True
        if side[1][number - 1] != body:
            return side[1][number - 1] + ending
    if matched:
        return content
    return redactor.redact(body) + ending


def _heading(redactor: Redactor, heading: str, before: int, side: _Side) -> str:
    """The text git writes after a hunk's range (` def main():`, a line of the old file
    above the hunk, cut at 80 bytes) as the whole file shows that line."""
    body = heading.rstrip("\n").strip()
    if not body:
        return heading
    if side is not None:
        for number in range(min(before, len(side[0])) - 1, 0, -1):
            line = side[0][number - 1]
            if line.strip().startswith(body) and side[1][number - 1] != line:
                return " " + side[1][number - 1].strip() + heading[len(heading.rstrip("\n")) :]
            if line.strip().startswith(body):
                break
    return redactor.redact(heading)


def _lines(text: str) -> list[str]:
    """`text` split after each `\\n` only (a `\\r` stays inside its line)."""
    lines = text.split("\n")
    tail = lines.pop()
    return [line + "\n" for line in lines] + ([tail] if tail else [])


__all__ = ["MAX_CONTEXT_CHARS", "redact_file_pair", "redact_file_text", "redact_unified_diff"]
