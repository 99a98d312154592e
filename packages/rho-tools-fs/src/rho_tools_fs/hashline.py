"""Hashline anchors: `{line_no}#{HASH}:{content}` lines that edits can point at.

The hash is a 4-character tag of a line's content, compatible with rho's original
implementation: lines with any alphanumeric character hash their UTF-8 bytes with a 31-based
rolling hash (mod 2**32); lines without one (blank or punctuation-only) are seeded by their
line number so that, e.g., successive `}` lines get different anchors.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from itertools import chain, compress, repeat

from rho_tools_fs.fold import fold16_many

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
    # `\r\n` pairs cannot overlap, so replacing them all strips exactly one `\r` before each
    # `\n` ("a\r\r\n" gives the line "a\r"), as `lines()` does.
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


_ALNUM = re.compile(r"[^\W_]")  # `\\w` is `str.isalnum()` plus `_`
_ASCII_ALNUM = bytes(b for b in range(128) if chr(b).isalnum())
# Every ASCII byte that is neither alphanumeric nor the line break.
_ASCII_OTHER = bytes(b for b in range(128) if not chr(b).isalnum() and b != 0x0A)
_spellings: list[str] = []


def _low_information(data: bytes, lines: Sequence[str]) -> list[int]:
    """Indices of the lines (of `data`, UTF-8, split at `\\n`) with no alphanumeric character."""
    kept = data.translate(None, _ASCII_OTHER).split(b"\n")  # alphanumerics and non-ASCII
    empty = list(compress(range(len(kept)), map(operator.not_, kept)))
    if data.isascii():
        return empty
    non_ascii = data.translate(None, _ASCII_OTHER + _ASCII_ALNUM).split(b"\n")
    only_non_ascii = map(operator.eq, map(len, kept), map(len, non_ascii))
    candidates = compress(range(len(kept)), map(operator.and_, only_non_ascii, map(bool, kept)))
    empty.extend(index for index in candidates if not _ALNUM.search(lines[index]))
    return empty


def _spelling_table() -> list[str]:
    """The 4-letter hash of every 16-bit seed (only the low 16 bits of a seed are spelled)."""
    if not _spellings:
        pairs = [HASH_ALPHABET[i & 0xF] + HASH_ALPHABET[i >> 4] for i in range(256)]
        _spellings.extend(low + high for high in pairs for low in pairs)
    return _spellings


def line_hashes(lines: Sequence[str], first_line_no: int = 1) -> list[str]:
    """`line_hash` of each of `lines`, numbered from `first_line_no`, computed together.

    Much faster than calling `line_hash` per line on large input (see `rho_tools_fs.fold`).
    The lines must not contain `\\n` (they come from `split_lines`).
    """
    if not lines:
        return []
    text = "\n".join(lines)
    if len(lines) < 8 or text.count("\n") != len(lines) - 1:
        return [line_hash(line, number) for number, line in enumerate(lines, first_line_no)]
    return _joined_hashes(text, lines, first_line_no)


def _joined_hashes(text: str, lines: Sequence[str], first_line_no: int) -> list[str]:
    """The hashes of `lines`, given as `text` = `"\\n".join(lines)` too."""
    data = text.encode("utf-8", "surrogatepass")
    seeds = fold16_many(data.split(b"\n"))
    for index in _low_information(data, lines):
        seeds[index] = (first_line_no + index) & 0xFFFF
    return list(map(_spelling_table().__getitem__, seeds))


def format_hashline(line: str, line_no: int, width: int) -> str:
    """One `{line_no:>width}#{HASH}:{line}` row."""
    return f"{line_no:>{width}}#{line_hash(line, line_no)}:{line}"


def format_hashlines(text: str) -> str:
    """`text` as hashline rows joined by `\\n`; numbers are right-aligned to the widest."""
    if not text:
        return ""
    body = text.replace("\r\n", "\n")  # as split_lines does
    body = body[:-1] if body.endswith("\n") else body
    lines = body.split("\n")
    width = len(str(len(lines)))
    numbers = map(str.rjust, map(str, range(1, len(lines) + 1)), repeat(width))
    hashes = _joined_hashes(body, lines, 1) if len(lines) >= 8 else line_hashes(lines)
    rows = zip(numbers, repeat("#"), hashes, repeat(":"), lines, repeat("\n"))
    return "".join(chain.from_iterable(rows))[:-1]


__all__ = [
    "HASH_ALPHABET",
    "HASH_LEN",
    "format_hashline",
    "format_hashlines",
    "line_hash",
    "line_hashes",
    "split_lines",
]
