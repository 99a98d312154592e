"""Bounded tool results: output too large for the context is cut on a line boundary.

A result may use at most a share of the prompt budget (`[agent] tool_result_share`, half by
default); the calls of one batch share that allowance, so that a batch of large results
still fits next to the conversation's protected parts. What is cut is said in a footer
(and, when the tool knows, how to read on); the full text stays in the tool message's
`details` in the session.
"""

from __future__ import annotations

from dataclasses import dataclass

from rho_kernel.context.estimator import utf8_len

FOOTER_RESERVE = 320
"""Bytes kept free under the limit for the footer."""
MAX_ERROR_BYTES = 64 * 1024
"""The most of a failure's text a tool call keeps (`bound_error`), as much as a command's
output (`[shell] max_output_bytes`' default)."""


@dataclass(frozen=True, slots=True)
class Bounded:
    """A result cut to its limit: the text to send and what was left out."""

    text: str
    original_bytes: int
    kept_bytes: int
    kept_lines: int
    total_lines: int


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
    of 29001 lines shown; 2104000 of 2150000 bytes left out. read on with offset=812]`."""
    cut = bounded.original_bytes - bounded.kept_bytes
    text = (
        f"[output cut to fit the context window: {bounded.kept_lines} of "
        f"{bounded.total_lines} lines shown; {cut} of {bounded.original_bytes} bytes left out"
    )
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
    "MAX_ERROR_BYTES",
    "BatchAllowance",
    "Bounded",
    "bound_error",
    "bound_text",
    "footer",
]
