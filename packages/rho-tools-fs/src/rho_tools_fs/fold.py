"""The hashline fold (`acc = acc * 31 + byte`) of many lines at once.

A hash spells only the low 16 bits of the fold, so the fold is computed modulo 2**16. Doing
it byte by byte in Python costs about 150 ns a byte, far too slow for a megabyte file; here
every line is a 32-bit lane of one big integer and Horner's rule runs column by column, so
each step is a handful of C-level big-integer operations over all lines together
("SIMD within a register"). Lines are right-aligned in their lanes with NUL padding, which
leaves the fold unchanged (leading zeros contribute nothing); a line longer than a lane is
split into lane-sized pieces whose folds are combined afterwards.
"""

from __future__ import annotations

import operator
import sys
from array import array
from itertools import accumulate, compress, repeat

#: Bytes of a line folded per lane; longer lines span several lanes.
LANE_WIDTH = 48
_LOW16 = 0xFFFF
_LANE_BYTES = 4
# A lane holds < 2**16 after masking; three steps of `* 31 + 255` stay below 2**31, so the
# lanes never carry into each other if masked every third column.
_STEPS_PER_MASK = 3
_PIECE_BASE = pow(31, LANE_WIDTH, 1 << 16)


def fold16(data: bytes) -> int:
    """The fold of one byte string, modulo 2**16 (the plain loop, for short input)."""
    acc = 0
    for byte in data:
        acc = (acc * 31 + byte) & _LOW16
    return acc


def _fold_lanes(flat: bytes, lanes: int) -> list[int]:
    """The fold of each consecutive `LANE_WIDTH`-byte lane of `flat`."""
    buffer = bytearray(_LANE_BYTES * lanes)
    mask = int.from_bytes(b"\xff\xff\x00\x00" * lanes, "little")
    acc = 0
    for column in range(LANE_WIDTH):
        buffer[0::_LANE_BYTES] = flat[column::LANE_WIDTH]
        acc = acc * 31 + int.from_bytes(buffer, "little")
        if column % _STEPS_PER_MASK == _STEPS_PER_MASK - 1:
            acc &= mask
    acc &= mask
    values = array("I")
    if values.itemsize != _LANE_BYTES:  # pragma: no cover - no such platform in use
        return [int.from_bytes(flat[i : i + LANE_WIDTH], "big") for i in range(lanes)]
    values.frombytes(acc.to_bytes(_LANE_BYTES * lanes, "little"))
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    return values.tolist()


def fold16_many(blobs: list[bytes]) -> list[int]:
    """`fold16` of every byte string in `blobs`, computed together."""
    if len(blobs) < 8:
        return [fold16(blob) for blob in blobs]
    lengths = list(map(len, blobs))
    if max(lengths) <= LANE_WIDTH:
        flat = b"".join(map(bytes.rjust, blobs, repeat(LANE_WIDTH), repeat(b"\0")))
        return _fold_lanes(flat, len(blobs))
    # ceil(length / LANE_WIDTH), at least 1, without a Python-level loop over the lines
    rounded_up = map(operator.add, lengths, repeat(LANE_WIDTH - 1))
    pieces = list(map(max, map(operator.floordiv, rounded_up, repeat(LANE_WIDTH)), repeat(1)))
    widths = map(operator.mul, pieces, repeat(LANE_WIDTH))
    flat = b"".join(map(bytes.rjust, blobs, widths, repeat(b"\0")))
    folds = _fold_lanes(flat, len(flat) // LANE_WIDTH)
    starts = [0, *accumulate(pieces)]
    result = list(map(folds.__getitem__, starts[:-1]))
    # Lines of several lanes: Horner over their pieces, one pass per piece position, each
    # pass over all lines that still have a piece there.
    multi = list(compress(range(len(blobs)), map((1).__lt__, pieces)))
    step = 1
    while multi:
        at = [starts[index] + step for index in multi]
        shifted = map(operator.mul, map(result.__getitem__, multi), repeat(_PIECE_BASE))
        combined = map(operator.add, shifted, map(folds.__getitem__, at))
        for index, value in zip(multi, map(operator.and_, combined, repeat(_LOW16)), strict=True):
            result[index] = value
        step += 1
        multi = [index for index in multi if pieces[index] > step]
    return result


__all__ = ["LANE_WIDTH", "fold16", "fold16_many"]
