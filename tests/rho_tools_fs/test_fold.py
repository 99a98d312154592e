"""The many-lines fold and `line_hashes` agree with the one-line definitions."""

from __future__ import annotations

import random

import pytest

from rho_tools_fs.fold import LANE_WIDTH, fold16, fold16_many
from rho_tools_fs.hashline import format_hashline, format_hashlines, line_hash, line_hashes


def slow_fold(data: bytes) -> int:
    acc = 0
    for byte in data:
        acc = (acc * 31 + byte) % 2**32
    return acc


def test_fold16_is_the_low_half_of_the_fold() -> None:
    for data in (b"", b"a", b"fn main() {", bytes(range(256)) * 3):
        assert fold16(data) == slow_fold(data) & 0xFFFF


@pytest.mark.parametrize(
    "lengths",
    [
        [0] * 20,
        [LANE_WIDTH] * 9,
        [LANE_WIDTH - 1, LANE_WIDTH, LANE_WIDTH + 1, 1, 0, 5 * LANE_WIDTH + 3, 2, 3, 4],
        [10_000, 1, 2, 3, 4, 5, 6, 7, 8],
    ],
)
def test_fold16_many_matches_one_at_a_time(lengths: list[int]) -> None:
    rng = random.Random(sum(lengths))
    blobs = [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]
    assert fold16_many(blobs) == [slow_fold(blob) & 0xFFFF for blob in blobs]


def test_line_hashes_matches_line_hash_on_mixed_lines() -> None:
    rng = random.Random(3)
    pieces = ["a", "_", "}", " ", "é", "٣", "\t", "x" * 70, "\u2028", "ä" * 40, "\r", "", "\ufffd"]
    for _ in range(200):
        lines = [
            "".join(rng.choices(pieces, k=rng.randint(0, 6))) for _ in range(rng.randint(0, 40))
        ]
        first = rng.randint(1, 70_000)
        assert line_hashes(lines, first) == [
            line_hash(line, number) for number, line in enumerate(lines, first)
        ]


def test_format_hashlines_matches_row_by_row() -> None:
    text = "".join(f"line {n}\n" if n % 3 else "}\n" for n in range(1, 1200)) + "tail"
    lines = text.split("\n")
    width = len(str(len(lines)))
    assert format_hashlines(text) == "\n".join(
        format_hashline(line, number, width) for number, line in enumerate(lines, 1)
    )
