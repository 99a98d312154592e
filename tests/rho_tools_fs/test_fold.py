"""The many-lines fold and `line_hashes` agree with the one-line definitions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_tools_fs.fold import BUCKET_WIDTHS, PIECE_WIDTH, fold16, fold16_table
from rho_tools_fs.hashline import format_hashline, format_hashlines, line_hash, line_hashes
from rho_tools_fs.line_seeds import SEEDS


def slow_fold(data: bytes) -> int:
    acc = 0
    for byte in data:
        acc = (acc * 31 + byte) % 2**32
    return acc


def table_folds(blobs: list[bytes]) -> list[int]:
    """Each blob's fold looked up in `fold16_table`, as hashline's callers read it."""
    table = fold16_table(blobs)
    return [table[blob] for blob in blobs]


def test_fold16_is_the_low_half_of_the_fold() -> None:
    for data in (b"", b"a", b"fn main() {", bytes(range(256)) * 3):
        assert fold16(data) == slow_fold(data) & 0xFFFF


EDGES = sorted(
    {0, 1, *BUCKET_WIDTHS, *(w + 1 for w in BUCKET_WIDTHS), *(w // 2 for w in BUCKET_WIDTHS)}
)


@pytest.mark.parametrize(
    "lengths",
    [
        [0] * 20,
        [PIECE_WIDTH] * 9,
        [PIECE_WIDTH - 1, PIECE_WIDTH, PIECE_WIDTH + 1, 1, 0, 5 * PIECE_WIDTH + 3, 2, 3, 4],
        [10_000, 1, 2, 3, 4, 5, 6, 7, 8],
        EDGES,
        EDGES * 40,  # every bucket big enough for the lanes, not the line-by-line loop
        [PIECE_WIDTH + 1] * 40 + [3 * PIECE_WIDTH] * 30,  # many long lines: pieces in lanes
        [0] * 30 + [1] * 30,  # a bucket of nothing but empty and one-byte lines
    ],
)
def test_fold16_table_matches_one_at_a_time(lengths: list[int]) -> None:
    rng = random.Random(sum(lengths) + len(lengths))
    blobs = [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]
    assert table_folds(blobs) == [slow_fold(blob) & 0xFFFF for blob in blobs]


def test_fold16_table_folds_repeated_lines_once_each() -> None:
    blobs = [b"alpha", b"beta", b"alpha"] * 10
    assert fold16_table(blobs) == {b"alpha": fold16(b"alpha"), b"beta": fold16(b"beta")}


# The bucket and lane edges are checked one by one above; random blobs add mixes of them.
@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=600), max_size=80))
def test_fold16_table_property(blobs: list[bytes]) -> None:
    assert table_folds(blobs) == [slow_fold(blob) & 0xFFFF for blob in blobs]


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


def test_line_hashes_of_lines_holding_a_newline() -> None:
    lines = ["a\nb", "}", "c"] * 5
    assert line_hashes(lines) == [line_hash(line, n) for n, line in enumerate(lines, 1)]


def rows_one_by_one(text: str, first: int = 1) -> str:
    """The reference: `format_hashline` (hence the plain `line_hash`) row by row."""
    body = text.replace("\r\n", "\n")
    body = body[:-1] if body.endswith("\n") else body
    lines = body.split("\n")
    width = len(str(first + len(lines) - 1))
    return "\n".join(format_hashline(line, n, width) for n, line in enumerate(lines, first))


def test_format_hashlines_matches_row_by_row() -> None:
    text = "".join(f"line {n}\n" if n % 3 else "}\n" for n in range(1, 1200)) + "tail"
    assert format_hashlines(text) == rows_one_by_one(text)


@pytest.mark.parametrize("first", [1, 9, 95, 998, 9_990, 65_530, 99_990, 999_990, 10_000_000])
def test_format_hashlines_numbers_and_seeds_from_any_first_line(first: int) -> None:
    text = "".join(("}" if n % 2 else f"x{n}") + "\n" for n in range(25))
    assert format_hashlines(text, first) == rows_one_by_one(text, first)


def test_format_hashlines_counts_past_ten_thousand_rows() -> None:
    text = "".join(f"v{n % 7}\n" if n % 5 else "\n" for n in range(12_345))
    assert format_hashlines(text) == rows_one_by_one(text)


LINE_CHARS = st.sampled_from(
    [
        "a",
        "Z",
        "0",
        "_",
        " ",
        "}",
        "\t",
        "\r",
        "\n",
        "\r\n",
        "é",
        "٣",
        "\u2028",
        "\ufffd",
        "\ud800",
        "<",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(LINE_CHARS, st.text(max_size=40)), max_size=200).map("".join),
    st.integers(min_value=1, max_value=200_000),
    st.booleans(),
)
def test_format_hashlines_property(text: str, first: int, warm: bool) -> None:
    if not warm:
        SEEDS.clear()
    assert format_hashlines(text, first) == (rows_one_by_one(text, first) if text else "")
