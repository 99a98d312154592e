"""Bounded tool results: output too large for the context is cut on a line boundary.

A result may use at most a share of the prompt budget (`[agent] tool_result_share`, half by
default); the calls of one batch share that allowance, so that a batch of large results
still fits next to the conversation's protected parts. A result keeps its beginning
(`bound_text`: a file, read on with an offset), or its beginning and end with a marker
where the middle was (`bound_ends`: a command's output, whose last lines say how it ended;
for tools that declare `Tool.cut_keeps_tail`). What is cut is said in a footer (and, when
the tool knows, how to read on); the full text stays in the tool message's `details` in the
session.
"""

from __future__ import annotations

from dataclasses import dataclass

from rho_kernel.context.estimator import utf8_len

FOOTER_RESERVE = 320
"""Bytes kept free under the limit for the footer."""
MARKER_RESERVE = 64
"""Bytes kept free under the limit for the marker where `bound_ends` leaves the middle out."""
MAX_ERROR_BYTES = 64 * 1024
"""The most of a failure's text a tool call keeps (`bound_error`)."""


@dataclass(frozen=True, slots=True)
class Bounded:
    """A result cut to its limit: the text kept from its beginning (`kept_lines` whole
    lines of `total_lines`), and, when its end is kept too (`bound_ends`), the `tail`
    (`tail_lines` whole lines); `kept_bytes` of `original_bytes` are kept in all."""

    text: str
    original_bytes: int
    kept_bytes: int
    kept_lines: int
    total_lines: int
    tail: str = ""
    tail_lines: int = 0

    @property
    def keeps_tail(self) -> bool:
        """Whether the end is kept as well as the beginning."""
        return bool(self.tail)

    @property
    def whole_lines(self) -> bool:
        """Whether the beginning and the end kept (`bound_ends`) are whole lines, not parts
        of a line too long for the room."""
        head_whole = not self.text or self.text.endswith("\n")
        return head_whole and (self.tail_lines > 0 or not self.tail)


def _line_count(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _prefix_within(text: str, limit: int) -> str:
    """The longest prefix of `text` of at most `limit` UTF-8 bytes (on a character boundary)."""
    if text.isascii():
        return text[:limit]
    data = text.encode("utf-8", "surrogatepass")[:limit]
    return data.decode("utf-8", "ignore")


def footer(bounded: Bounded, hint: str | None) -> str:
    """The line appended to a cut result, e.g. `[output cut to fit the context window: 812
    of 29001 lines shown; 2104000 of 2150000 bytes left out. read on with offset=812]`, or
    for one whose end is kept too `[output cut to fit the context window: the first 120
    and last 118 of 5000 lines shown; lines 121-4882 (22750 of 24000 bytes) left out. …]`."""
    cut = bounded.original_bytes - bounded.kept_bytes
    head, tail, total = bounded.kept_lines, bounded.tail_lines, bounded.total_lines
    if not bounded.keeps_tail:
        shown = f"{head} of {total} lines shown; {cut} of {bounded.original_bytes} bytes"
    elif bounded.whole_lines:
        shown = (
            f"the first {head} and last {tail} of {total} lines shown; lines {head + 1}-"
            f"{total - tail} ({cut} of {bounded.original_bytes} bytes)"
        )
    else:
        shown = f"its beginning and end shown; {cut} of {bounded.original_bytes} bytes"
    text = f"[output cut to fit the context window: {shown} left out"
    if hint:
        text += f". {hint.strip()}"
    else:
        text += ". Ask for less at a time (a narrower range, pattern or command)"
    return text[: FOOTER_RESERVE - 8] + "]"


def bound_text(text: str, limit: int) -> Bounded | None:
    """`text` cut to at most `limit` bytes minus the footer's reserve, at the end of a line
    (mid-line only when the first line alone is too long); None when it fits as it is."""
    size = utf8_len(text)
    if size <= limit:
        return None
    prefix = _prefix_within(text, max(0, limit - FOOTER_RESERVE))
    cut = prefix.rfind("\n")
    if cut >= 0:
        kept = prefix[:cut]
        kept_lines = kept.count("\n") + 1 if cut > 0 else 0
    else:
        kept = prefix
        kept_lines = 0
    return Bounded(
        text=kept,
        original_bytes=size,
        kept_bytes=utf8_len(kept),
        kept_lines=kept_lines,
        total_lines=_line_count(text),
    )


def bound_ends(text: str, limit: int) -> Bounded | None:
    """`text` cut to at most `limit` bytes minus the footer's and the marker's reserve: its
    first lines and its last lines, half of the room each (what the beginning leaves unused
    goes to the end), each cut at a line boundary (inside a line only when no line boundary
    falls in its half); None when it fits as it is. `shown` renders it with a marker where
    the middle was."""
    data = text.encode("utf-8", "surrogatepass")
    size = len(data)
    if size <= limit:
        return None
    room = max(0, limit - FOOTER_RESERVE - MARKER_RESERVE)
    head = data[: room // 2]
    end = head.rfind(b"\n") + 1
    if end:
        head = head[:end]
    budget = room - len(head)
    tail = data[size - budget :] if budget > 0 else b""
    whole_tail = not tail or data[size - budget - 1] == 0x0A  # it begins a line
    if not whole_tail:
        newline = tail.find(b"\n") + 1
        if 0 < newline < len(tail):
            tail, whole_tail = tail[newline:], True
    kept_head = head.decode("utf-8", "ignore")  # drops a character cut in two
    kept_tail = tail.decode("utf-8", "ignore")
    return Bounded(
        text=kept_head,
        original_bytes=size,
        kept_bytes=utf8_len(kept_head) + utf8_len(kept_tail),
        kept_lines=kept_head.count("\n"),
        total_lines=_line_count(text),
        tail=kept_tail,
        tail_lines=_line_count(kept_tail) if whole_tail else 0,
    )


def shown(bounded: Bounded, hint: str | None) -> str:
    """The text the model gets for a cut result: what was kept, with a marker on a line of
    its own where the middle was left out (`[… 4762 lines left out …]`) when its end is kept
    too, then the footer (`footer`)."""
    if not bounded.keeps_tail:
        return f"{bounded.text}\n\n{footer(bounded, hint)}"
    left_out = bounded.original_bytes - bounded.kept_bytes
    if bounded.whole_lines:
        lines = bounded.total_lines - bounded.kept_lines - bounded.tail_lines
        marker = f"[… {lines} line{'s' if lines != 1 else ''} left out …]"
    else:
        marker = f"[… {left_out} bytes left out …]"
    before = "" if bounded.text.endswith("\n") or not bounded.text else "\n"
    tail = bounded.tail if bounded.tail.endswith("\n") else bounded.tail + "\n"
    return f"{bounded.text}{before}{marker}\n{tail}\n{footer(bounded, hint)}"


def bound_error(text: str, limit: int = MAX_ERROR_BYTES) -> str:
    """A tool's failure text (an exception's message) at most about `limit` UTF-8 bytes: its
    head and tail around a note of how much was left out. The loop bounds every failure a
    tool raises with it, before the text is kept anywhere (the session keeps a cut result's
    full text), as a tool's own output is bounded by the tool."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    head = data[: limit // 2].decode("utf-8", "ignore")
    tail = data[len(data) - limit // 2 :].decode("utf-8", "ignore")
    left_out = len(data) - utf8_len(head) - utf8_len(tail)
    return f"{head}\n[… {left_out} of {len(data)} bytes of the error left out …]\n{tail}"


class BatchAllowance:
    """The bytes each result of one tool batch may use.

    The batch shares `share` bytes: a result may use what earlier results of the batch left,
    but never less than `share / (2 × calls)`, so that the batch as a whole stays within 1.5
    times `share`.
    """

    def __init__(self, share: int, calls: int) -> None:
        self.share = max(0, share)
        self.floor = self.share // (2 * max(1, calls))
        self.used = 0

    def limit(self) -> int:
        """The bytes the next result may use."""
        return max(self.share - self.used, self.floor)

    def spend(self, size: int) -> None:
        """Account for a result of `size` bytes."""
        self.used += max(0, size)


__all__ = [
    "FOOTER_RESERVE",
    "MARKER_RESERVE",
    "MAX_ERROR_BYTES",
    "BatchAllowance",
    "Bounded",
    "bound_ends",
    "bound_error",
    "bound_text",
    "footer",
    "shown",
]
