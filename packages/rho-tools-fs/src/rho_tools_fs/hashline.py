"""Hashline anchors: `{line_no}#{HASH}:{content}` lines that edits can point at.

The hash is a 4-character tag of a line's content, compatible with rho's original
implementation: lines with any alphanumeric character hash their UTF-8 bytes with a 31-based
rolling hash (mod 2**32); lines without one (blank or punctuation-only) are seeded by their
line number so that, e.g., successive `}` lines get different anchors.

A line a tool shows as `[REDACTED]` (inside a private key block, see
`rho_kernel.KeyBlockLines`) gets its anchor from what is shown, never from the hidden text:
`hidden_hash` seeds it by its line number, as a line without alphanumerics. Such rows are
made by `format_hashline(..., hidden=True)` (and `hide_rows` for many), anchors are checked
with `shown_hash`; every tool that shows or checks anchors goes through them, so no answer
about a hidden line depends on its content.
"""

from __future__ import annotations

from collections.abc import Sequence

from rho_kernel.security import REDACTED, KeyBlockLines
from rho_tools_fs.line_seeds import line_seeds
from rho_tools_fs.row_prefixes import HASH_ALPHABET, HASH_LEN, row_prefixes

_MASK = 0xFFFFFFFF


def _fold(data: bytes) -> int:
    """`acc = acc * 31 + b (mod 2**32)` over `data`, starting from 0."""
    acc = 0
    for byte in data:
        acc = (acc * 31 + byte) & _MASK
    return acc


def line_hash(line: str, line_no: int) -> str:
    """The 4-character hash of `line` (without its newline) at 1-based `line_no`."""
    if any(char.isalnum() for char in line):
        seed = _fold(line.encode("utf-8", "surrogatepass"))
    else:
        seed = line_no & _MASK
    return "".join(HASH_ALPHABET[(seed >> shift) & 0xF] for shift in range(0, 4 * HASH_LEN, 4))


def hidden_hash(line_no: int) -> str:
    """The hash shown for line `line_no` when its content is hidden (`[REDACTED]`): seeded by
    the number alone, so it tells nothing about the content."""
    return _spell(line_no & _MASK)


def shown_hash(line: str, line_no: int, hidden: KeyBlockLines) -> str:
    """The hash shown for `line` at `line_no`: `hidden_hash` if `hidden` holds the line,
    else `line_hash`. Anchors are shown and checked with this."""
    return hidden_hash(line_no) if line_no in hidden else line_hash(line, line_no)


def hide_rows(rows: str, hidden: KeyBlockLines, first_line_no: int = 1) -> str:
    """Hashline `rows` (joined by `\\n`, the first numbered `first_line_no`) with each row of
    a line in `hidden` replaced by `{line_no}#{hidden_hash}:[REDACTED]` (number as aligned)."""
    if not hidden or not rows:
        return rows
    split = rows.split("\n")
    last = first_line_no + len(split) - 1
    for start, end in hidden.ranges:
        for number in range(max(start, first_line_no), min(end, last) + 1):
            row = split[number - first_line_no]
            width = row.index("#")  # the number as it is aligned
            split[number - first_line_no] = format_hashline("", number, width, hidden=True)
    return "\n".join(split)


def split_lines(text: str) -> list[str]:
    """Split like Rust's `str::lines()`.

    Lines end at `\\n` or `\\r\\n` (a bare `\\r` is content); a final line ending does not start
    an extra empty line; the empty string has no lines. Unlike `str.splitlines`, no other
    characters (form feed, U+2028, …) end a line.
    """
    if not text:
        return []
    # `\r\n` pairs cannot overlap, so replacing them all strips exactly one `\r` before each
    # `\n` ("a\r\r\n" gives the line "a\r"), as `lines()` does.
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _spell(seed: int) -> str:
    return "".join(HASH_ALPHABET[(seed >> shift) & 0xF] for shift in range(0, 4 * HASH_LEN, 4))


def line_hashes(lines: Sequence[str], first_line_no: int = 1) -> list[str]:
    """`line_hash` of each of `lines`, numbered from `first_line_no`, computed together.

    Much faster than calling `line_hash` per line on large input (see `rho_tools_fs.fold`).
    """
    if any("\n" in line for line in lines):
        return [line_hash(line, number) for number, line in enumerate(lines, first_line_no)]
    blobs = [line.encode("utf-8", "surrogatepass") for line in lines]
    return list(map(_spell, line_seeds(blobs, first_line_no)))


def format_hashline(line: str, line_no: int, width: int, *, hidden: bool = False) -> str:
    """One `{line_no:>width}#{HASH}:{line}` row; a `hidden` line is shown as
    `{line_no:>width}#{hidden_hash}:[REDACTED]`."""
    if hidden:
        return f"{line_no:>{width}}#{hidden_hash(line_no)}:{REDACTED}"
    return f"{line_no:>{width}}#{line_hash(line, line_no)}:{line}"


def format_hashlines(text: str, first_line_no: int = 1) -> str:
    """`text` as hashline rows joined by `\\n`, numbered from `first_line_no`.

    Lines are split as `split_lines` does; numbers are right-aligned to the widest.
    """
    if not text:
        return ""
    data = text.encode("utf-8", "surrogatepass").replace(b"\r\n", b"\n")  # as split_lines
    return hashline_rows((data[:-1] if data.endswith(b"\n") else data).split(b"\n"), first_line_no)


def hashline_rows(blobs: list[bytes], first_line_no: int = 1) -> str:
    """Hashline rows joined by `\\n` of `blobs`, UTF-8 lines without `\\n` (surrogates allowed).

    Rows are numbered from `first_line_no`; numbers are right-aligned to the widest.
    """
    if not blobs:
        return ""
    width = len(str(first_line_no + len(blobs) - 1))
    prefixes = row_prefixes(line_seeds(blobs, first_line_no), first_line_no, width)
    rows: list[bytes] = [b""] * (2 * len(blobs))
    rows[0::2] = prefixes
    rows[1::2] = blobs
    return b"".join(rows).decode("utf-8", "surrogatepass")


__all__ = [
    "HASH_ALPHABET",
    "HASH_LEN",
    "format_hashline",
    "format_hashlines",
    "hashline_rows",
    "hidden_hash",
    "hide_rows",
    "line_hash",
    "line_hashes",
    "shown_hash",
    "split_lines",
]
