"""The `{line_no:>width}#{HASH}:` prefixes of many hashline rows, built column by column.

Formatting each row's number and hash in Python costs about a microsecond a row on a slow
machine; here every column of the fixed-width prefixes (each digit of the line number, each
letter of the hash) is written at once with a strided slice assignment into one buffer,
which is then split into the rows' prefixes. Only C-level operations touch every row.
"""

from __future__ import annotations

from array import array

#: The 16 letters a hash is spelled with, indexed by a 4-bit nibble (low nibble first).
HASH_ALPHABET = "ZPMQVRWSNKTXJBYH"
#: Characters in a line hash.
HASH_LEN = 4

#: Separates the prefixes in the buffer (never part of a prefix).
_SEPARATOR = b"\0"
_DIGITS = [bytes([48 + digit]) for digit in range(10)]
_LETTERS = HASH_ALPHABET.encode("ascii")
# The letter of a seed byte's low and high nibble, indexed by the byte.
_LOW_LETTER = bytes(_LETTERS[byte & 0xF] for byte in range(256))
_HIGH_LETTER = bytes(_LETTERS[byte >> 4] for byte in range(256))
# Below this many rows per run a digit column is built from a repeated cycle of runs.
_CYCLE_LIMIT = 10_000


def _digit_column(first: int, count: int, place: int) -> bytes:
    """The digit at `place` (0 = units) of `first`, `first + 1`, …: a space left of the number."""
    unit = 10**place
    if unit * 10 <= _CYCLE_LIMIT:
        cycle = b"".join(digit * unit for digit in _DIGITS)
        start = first % len(cycle)
        repeats = -(-(start + count) // len(cycle))
        column = (cycle * repeats)[start : start + count]
    else:
        runs = []
        number = first
        while number < first + count:
            run_end = min((number // unit + 1) * unit, first + count)
            runs.append(_DIGITS[number // unit % 10] * (run_end - number))
            number = run_end
        column = b"".join(runs)
    if place and first < unit:  # numbers shorter than `place + 1` digits: leading spaces
        blank = min(unit - first, count)
        column = b" " * blank + column[blank:]
    return column


def row_prefixes(seeds: list[int], first_line_no: int, width: int) -> list[bytes]:
    """`\\n{line_no:>width}#{HASH}:` for each seed, numbered from `first_line_no`.

    The first prefix has no `\\n`, so the prefixes and lines joined alternately are the rows.
    """
    count = len(seeds)
    stride = len(_SEPARATOR) + 1 + width + 1 + HASH_LEN + 1
    buffer = bytearray((_SEPARATOR + b"\n" + b" " * width + b"#" + b"?" * HASH_LEN + b":") * count)
    digits_at = len(_SEPARATOR) + 1
    for place in range(width):
        column = _digit_column(first_line_no, count, place)
        buffer[digits_at + width - 1 - place :: stride] = column
    raw = array("H", seeds).tobytes()  # native order: pick the low and high byte by it
    low, high = (raw[0::2], raw[1::2]) if array("H", [1]).tobytes()[0] else (raw[1::2], raw[0::2])
    letters_at = digits_at + width + 1
    for offset, source, table in (
        (0, low, _LOW_LETTER),
        (1, low, _HIGH_LETTER),
        (2, high, _LOW_LETTER),
        (3, high, _HIGH_LETTER),
    ):
        buffer[letters_at + offset :: stride] = source.translate(table)
    prefixes = bytes(buffer).split(_SEPARATOR)
    del prefixes[0]
    if prefixes:
        prefixes[0] = prefixes[0][1:]
    return prefixes


__all__ = ["HASH_ALPHABET", "HASH_LEN", "row_prefixes"]
