"""The hashline fold (`acc = acc * 31 + byte`) of many lines at once.

A hash spells only the low 16 bits of the fold, so the fold is computed modulo 2**16. Doing
it byte by byte in Python costs about 150 ns a byte, far too slow for a megabyte file; here
every line is a 32-bit lane of one big integer and Horner's rule runs column by column, so
each step is a handful of C-level big-integer operations over all lines together
("SIMD within a register").

Lines are grouped by length into buckets (16, 32, 64, … bytes wide) and right-aligned in
their bucket's lanes with NUL padding, which leaves the fold unchanged (leading zeros
contribute nothing). Within a bucket the lines are sorted longest first, so the lanes a
column touches are a prefix of the bucket: a column spends work only on the lines that reach
it and a line costs one lane step per byte. Lines longer than the widest bucket are split
into bucket-wide pieces whose folds are combined afterwards.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable
from itertools import repeat

#: Widths (bytes) of the length buckets; a line goes to the narrowest bucket that holds it.
BUCKET_WIDTHS = (16, 32, 64, 128, 256)
#: Lines longer than this are folded in pieces of this many bytes.
PIECE_WIDTH = BUCKET_WIDTHS[-1]
_LOW16 = 0xFFFF
_LANE_BYTES = 4
_LANE_MASK = b"\xff\xff\x00\x00"
# A lane holds < 2**16 after masking; three steps of `* 31 + 255` stay below 2**31, so the
# lanes never carry into each other if masked every third column.
_STEPS_PER_MASK = 3
_PIECE_BASE = pow(31, PIECE_WIDTH, 1 << 16)
# Below this many bytes per column a bucket is folded line by line: the per-column cost of
# the lanes (a few big-integer calls) would exceed the plain loop's cost.
_MIN_LANE_BYTES_PER_COLUMN = 16


def fold16(data: bytes) -> int:
    """The fold of one byte string, modulo 2**16 (the plain loop, for short input)."""
    acc = 0
    for byte in data:
        acc = (acc * 31 + byte) & _LOW16
    return acc


def _lane_values(acc: int, lanes: int) -> list[int]:
    """The 32-bit lanes of `acc`, lowest first."""
    values = array("I")
    if values.itemsize != _LANE_BYTES:  # pragma: no cover - no such platform in use
        raw = acc.to_bytes(_LANE_BYTES * lanes, "little")
        return [int.from_bytes(raw[i : i + 4], "little") for i in range(0, len(raw), 4)]
    values.frombytes(acc.to_bytes(_LANE_BYTES * lanes, "little"))
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    return values.tolist()


def _fold_bucket(group: list[bytes], width: int) -> list[int]:
    """The folds of `group`: lines sorted longest first, none longer than `width` bytes."""
    count = len(group)
    flat = b"".join(map(bytes.rjust, group, repeat(width), repeat(b"\0")))
    # Column c (0-based, left to right) holds a byte of every line at least `width - c` long:
    # with the lines sorted longest first, those are the first `active(c)` lanes.
    negated = [-len(line) for line in group]
    buffer = bytearray(_LANE_BYTES * count)
    view = memoryview(buffer)
    mask = int.from_bytes(_LANE_MASK * count, "little")
    acc = 0
    for column in range(width - len(group[0]), width):
        active = bisect_right(negated, column - width)
        buffer[0 : _LANE_BYTES * active : _LANE_BYTES] = flat[column : active * width : width]
        acc = acc * 31 + int.from_bytes(view[: _LANE_BYTES * active], "little")
        if column % _STEPS_PER_MASK == _STEPS_PER_MASK - 1:
            acc &= mask
    view.release()
    return _lane_values(acc & mask, count)


def _fold_group(group: list[bytes], width: int) -> list[int]:
    """`fold16` of each line of `group` (sorted longest first, none longer than `width`)."""
    if sum(map(len, group)) < _MIN_LANE_BYTES_PER_COLUMN * width:
        return list(map(fold16, group))
    return _fold_bucket(group, width)


def _fold_long(lines: list[bytes]) -> list[int]:
    """`fold16` of lines longer than `PIECE_WIDTH`, from the folds of their pieces."""
    padded = [line.rjust(-(-len(line) // PIECE_WIDTH) * PIECE_WIDTH, b"\0") for line in lines]
    flat = b"".join(padded)
    pieces = [flat[i : i + PIECE_WIDTH] for i in range(0, len(flat), PIECE_WIDTH)]
    folds = _fold_group(pieces, PIECE_WIDTH)
    result: list[int] = []
    start = 0
    for line in padded:
        acc = 0
        end = start + len(line) // PIECE_WIDTH
        for fold in folds[start:end]:
            acc = (acc * _PIECE_BASE + fold) & _LOW16
        result.append(acc)
        start = end
    return result


def fold16_table(blobs: Iterable[bytes]) -> dict[bytes, int]:
    """`fold16` of every byte string in `blobs` (best given distinct), computed together."""
    ordered = sorted(blobs, key=len, reverse=True)  # a repeated line is folded again, harmlessly
    lengths = [-len(blob) for blob in ordered]  # ascending, for bisect
    table: dict[bytes, int] = {}
    end = bisect_right(lengths, -PIECE_WIDTH - 1)
    if end:
        table.update(zip(ordered[:end], _fold_long(ordered[:end]), strict=True))
    for width in reversed(BUCKET_WIDTHS):
        start, end = end, bisect_right(lengths, -(width // 2) - 1)
        if width == BUCKET_WIDTHS[0]:
            end = len(ordered)
        if end > start:
            group = ordered[start:end]
            table.update(zip(group, _fold_group(group, width), strict=True))
    return table


__all__ = ["BUCKET_WIDTHS", "PIECE_WIDTH", "fold16", "fold16_table"]
