"""Hashline anchors: `{line_no}#{HASH}:{content}` lines that edits can point at.

The hash is a 4-character tag of a line's content, compatible with rho's original
implementation: lines with any alphanumeric character hash their UTF-8 bytes with a 31-based
rolling hash (mod 2**32); lines without one (blank or punctuation-only) are seeded by their
line number so that, e.g., successive `}` lines get different anchors.
"""

from __future__ import annotations

#: The 16 letters a hash is spelled with, indexed by a 4-bit nibble.
HASH_ALPHABET = "ZPMQVRWSNKTXJBYH"
#: Characters in a line hash.
HASH_LEN = 4

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


def split_lines(text: str) -> list[str]:
    """Split like Rust's `str::lines()`.

    Lines end at `\\n` or `\\r\\n` (a bare `\\r` is content); a final line ending does not start
    an extra empty line; the empty string has no lines. Unlike `str.splitlines`, no other
    characters (form feed, U+2028, …) end a line.
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        terminated = len(lines)
    else:
        terminated = len(lines) - 1  # the last line has no line ending
    for index in range(terminated):
        if lines[index].endswith("\r"):
            lines[index] = lines[index][:-1]
    return lines


def format_hashline(line: str, line_no: int, width: int) -> str:
    """One `{line_no:>width}#{HASH}:{line}` row."""
    return f"{line_no:>{width}}#{line_hash(line, line_no)}:{line}"


def format_hashlines(text: str) -> str:
    """`text` as hashline rows joined by `\\n`; numbers are right-aligned to the widest."""
    lines = split_lines(text)
    width = len(str(len(lines)))
    return "\n".join(format_hashline(line, number, width) for number, line in enumerate(lines, 1))


__all__ = [
    "HASH_ALPHABET",
    "HASH_LEN",
    "format_hashline",
    "format_hashlines",
    "line_hash",
    "split_lines",
]
