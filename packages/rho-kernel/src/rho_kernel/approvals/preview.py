"""What an approval shows of a file change before it is made: a bounded unified diff.

A tool that writes files may plan its change before the approval is asked
(`Tool.preview`): the diff of exactly what it will write, and the `base` it planned from (a
fingerprint of the file as it was). Approved, the call runs with that base
(`ToolContext.planned`) and writes only if the file still matches it; otherwise it raises
`PlanChanged`, and rho plans again and asks again — a change is never written blind.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from itertools import compress, count, islice
from operator import ne
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.security.redaction import Redactor

#: The fingerprint of a file that does not exist yet.
ABSENT = "absent"
#: The most diff lines and characters an approval shows (the rest is counted).
MAX_PREVIEW_LINES = 400
MAX_PREVIEW_CHARS = 32 * 1024
#: Lines of context around each change.
CONTEXT_LINES = 3


class PlanChanged(Exception):
    """The file changed after the approved plan was made: nothing was written."""


@dataclass(frozen=True, slots=True)
class Preview:
    """A planned file change: the diff shown to the approver, and what it was planned from."""

    text: str
    base: str


def fingerprint(data: bytes | None) -> str:
    """What a plan remembers of a file's content (None: no file)."""
    return ABSENT if data is None else hashlib.sha256(data).hexdigest()


def unified_preview(
    shown: str, old: str | None, new: str, *, redactor: Redactor | None = None
) -> str:
    """The unified diff from `old` (None: a new file) to `new`, bounded, redacted by
    `redactor` (default: the built-in rules) with the whole files' context: a hunk inside a
    private key shows `[REDACTED]` for its lines (`Redactor.redact_diff`). Lines the two
    share at the start and end are set aside before diffing, so a small change to a long
    file costs little. Lines end at `\n` only, as git's do."""
    if redactor is None:
        from rho_kernel.security.redaction import Redactor

        redactor = Redactor()
    return redactor.redact_diff(_diff(shown, old, new), old, new)


def _diff(shown: str, old: str | None, new: str) -> str:
    """The bounded unified diff from `old` to `new`, not redacted."""
    before = [] if old is None else _lines(old)
    after = _lines(new)
    head = _shared(before, after, 0)
    tail = _shared(before, after, head)
    start = max(0, head - CONTEXT_LINES)
    old_part = before[start : len(before) - max(0, tail - CONTEXT_LINES)]
    new_part = after[start : len(after) - max(0, tail - CONTEXT_LINES)]
    names = ("/dev/null" if old is None else f"a/{shown}", f"b/{shown}")
    in_place = _in_place_hunks(old_part, new_part, names)
    if in_place is not None:
        return _bounded([_shifted(line, start) for line in in_place])
    diff = difflib.unified_diff(old_part, new_part, *names, n=CONTEXT_LINES)
    return _bounded([_shifted(line, start) for line in diff])


def _lines(text: str) -> list[str]:
    """`text`'s lines, each with its `\n` (the last maybe without)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def _in_place_hunks(
    before: list[str], after: list[str], names: tuple[str, str]
) -> list[str] | None:
    """The diff of an edit that changed lines in place (as many lines, at most one in ten
    changed, where difflib's matching would cost much more), in difflib's hunk layout;
    None for any other change."""
    if not before or len(before) != len(after):
        return None
    changed = list(compress(count(), map(ne, before, after)))
    if not changed or len(changed) * 10 > len(before):
        return None
    lines = [f"--- {names[0]}\n", f"+++ {names[1]}\n"]
    for first, last in _hunks(changed, len(before)):
        span = _span(first, last)
        lines.append(f"@@ -{span} +{span} @@\n")
        position = first
        while position < last:
            if before[position] == after[position]:
                lines.append(" " + before[position])
                position += 1
                continue
            block = position
            while position < last and before[position] != after[position]:
                position += 1
            lines += ["-" + line for line in before[block:position]]
            lines += ["+" + line for line in after[block:position]]
    return lines


def _hunks(changed: list[int], length: int) -> list[tuple[int, int]]:
    """The line ranges of the hunks around the `changed` lines: `CONTEXT_LINES` of context
    on each side, and two changes closer than twice that in one hunk."""
    hunks: list[tuple[int, int]] = []
    for line in changed:
        start, stop = max(0, line - CONTEXT_LINES), min(length, line + 1 + CONTEXT_LINES)
        if hunks and start <= hunks[-1][1]:
            hunks[-1] = (hunks[-1][0], stop)
        else:
            hunks.append((start, stop))
    return hunks


def _span(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it (difflib's convention)."""
    length = stop - start
    return f"{start + 1}" if length == 1 else f"{start + (length > 0)},{length}"


def _shared(before: list[str], after: list[str], head: int) -> int:
    """How many lines the two share at the start (`head` = 0), or at the end past the `head`
    lines shared at the start (compared in C: `map`, `compress`)."""
    limit = min(len(before), len(after)) - head
    ends = (before, after) if head == 0 else (reversed(before), reversed(after))
    pairs = map(ne, *ends)
    return next(compress(count(), islice(pairs, limit)), limit)


def _shifted(line: str, offset: int) -> str:
    """A diff line, its hunk header's line numbers moved by `offset` (the lines set aside)."""
    if not line.startswith("@@") or offset == 0:
        return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
    old, new = line.split(" ")[1:3]
    return f"@@ {_moved(old, offset)} {_moved(new, offset)} @@\n"


def _moved(span: str, offset: int) -> str:
    sign, numbers = span[0], span[1:]
    first, comma, count = numbers.partition(",")
    moved = int(first) + offset if int(first) or count != "0" else int(first)
    return f"{sign}{moved}{comma}{count}"


def _bounded(lines: list[str]) -> str:
    kept: list[str] = []
    size = 0
    for line in lines:
        if len(kept) >= MAX_PREVIEW_LINES or size + len(line) > MAX_PREVIEW_CHARS:
            left = len(lines) - len(kept)
            kept.append(f"[… {left} more diff line{'' if left == 1 else 's'} not shown]\n")
            break
        kept.append(line)
        size += len(line)
    return "".join(kept)


__all__ = [
    "ABSENT",
    "MAX_PREVIEW_CHARS",
    "MAX_PREVIEW_LINES",
    "PlanChanged",
    "Preview",
    "fingerprint",
    "unified_preview",
]
