"""The line hash, Rust-compatible line splitting, and the hashline row format."""

from __future__ import annotations

import pytest

from rho_kernel.security import REDACTED, KeyBlockLines
from rho_tools_fs.hashline import (
    HASH_ALPHABET,
    format_hashlines,
    hidden_hash,
    hide_rows,
    line_hash,
    shown_hash,
    split_lines,
)

ALPHABET = "ZPMQVRWSNKTXJBYH"


def _spell(seed: int) -> str:
    """The four letters of a seed, low nibble first (written out independently)."""
    return (
        ALPHABET[seed % 16]
        + ALPHABET[(seed // 16) % 16]
        + ALPHABET[(seed // 256) % 16]
        + ALPHABET[(seed // 4096) % 16]
    )


def test_alphabet() -> None:
    assert HASH_ALPHABET == ALPHABET


def test_fn_main_by_hand() -> None:
    # "fn main() {" = 66 6e 20 6d 61 69 6e 28 29 20 7b; acc = acc*31 + b mod 2**32.
    acc = 0
    for byte in [0x66, 0x6E, 0x20, 0x6D, 0x61, 0x69, 0x6E, 0x28, 0x29, 0x20, 0x7B]:
        acc = (acc * 31 + byte) % 2**32
    assert acc == 0xD2A602AD
    # low nibbles first: D → B, A → T, 2 → M, 0 → Z
    assert _spell(acc) == "BTMZ"
    assert line_hash("fn main() {", 1) == "BTMZ"
    # Content lines do not depend on the line number.
    assert line_hash("fn main() {", 999) == "BTMZ"


def test_single_letter_by_hand() -> None:
    # "a" = 0x61 = 97 → nibbles 1, 6, 0, 0 → P, W, Z, Z
    assert line_hash("a", 7) == "PWZZ"


def test_fold_wraps_at_32_bits() -> None:
    line = "x" * 40
    acc = 0
    for _ in line:
        acc = (acc * 31 + ord("x")) % 2**32
    assert line_hash(line, 1) == _spell(acc)


def test_non_ascii_letters_hash_their_utf8_bytes() -> None:
    acc = 0
    for byte in "é".encode():  # c3 a9
        acc = (acc * 31 + byte) % 2**32
    assert acc == 0xC3 * 31 + 0xA9
    assert line_hash("é", 1) == _spell(acc)


@pytest.mark.parametrize(
    ("line", "line_no", "expected"),
    [
        ("", 1, "PZZZ"),  # seed 1
        ("}", 3, "QZZZ"),  # seed 3
        ("   ", 16, "ZPZZ"),  # seed 16 = 0x10
        ("// --- ", 0x1234, "VQMP"),  # 4, 3, 2, 1
        ("});", 0xFFFF, "HHHH"),
    ],
)
def test_lines_without_alphanumerics_are_seeded_by_line_number(
    line: str, line_no: int, expected: str
) -> None:
    assert line_hash(line, line_no) == expected
    assert _spell(line_no) == expected


def test_punctuation_lines_differ_by_position() -> None:
    assert line_hash("}", 10) != line_hash("}", 11)


def test_digits_count_as_alphanumeric() -> None:
    assert line_hash("42", 1) == line_hash("42", 2)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("\n", [""]),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\nb", ["a", "b"]),
        ("a\n\nb\n", ["a", "", "b"]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\r\nb", ["a", "b"]),
        ("a\rb\n", ["a\rb"]),  # a bare CR is content
        ("a\nb\r", ["a", "b\r"]),  # like Rust: unterminated last line keeps its CR
        ("a\x0cb\u2028c\n", ["a\x0cb\u2028c"]),  # only \n ends a line
        ("\n\n", ["", ""]),
    ],
)
def test_split_lines_matches_rust_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_format_hashlines_rows() -> None:
    text = "fn main() {\n}\n"
    assert format_hashlines(text) == "1#BTMZ:fn main() {\n2#MZZZ:}"


def test_format_hashlines_empty() -> None:
    assert format_hashlines("") == ""


def test_format_hashlines_width_at_nine_lines() -> None:
    rows = format_hashlines("\n".join(["x"] * 9)).split("\n")
    assert [row.split("#")[0] for row in rows] == [str(n) for n in range(1, 10)]


def test_format_hashlines_width_at_ten_lines() -> None:
    rows = format_hashlines("\n".join(["}"] * 10) + "\n").split("\n")
    assert len(rows) == 10
    assert rows[0] == " 1#PZZZ:}"
    assert rows[8] == " 9#KZZZ:}"
    assert rows[9] == "10#TZZZ:}"


def test_format_hashlines_crlf_content_has_no_cr() -> None:
    assert format_hashlines("a\r\nb\r\n") == f"1#{line_hash('a', 1)}:a\n2#{line_hash('b', 2)}:b"


# Lines shown as [REDACTED] (private keys): anchors from the number alone.


def test_hidden_hash_is_seeded_by_the_number_alone() -> None:
    for number in (1, 2, 9, 10, 4095, 65535, 65536, 65537, 10**6):
        assert hidden_hash(number) == _spell(number)
    blocks = KeyBlockLines([(2, 3)])
    assert (
        shown_hash("MIIEowIBAAKCAQEAu1SU1LfVLPHC", 2, blocks)
        == shown_hash("NJJFpxJCBBLDRFFBv2TV2MgWMQ", 2, blocks)
        == _spell(2)
    )
    assert shown_hash("MIIEowIBAAKCAQEAu1SU1LfVLPHC", 4, blocks) == line_hash(
        "MIIEowIBAAKCAQEAu1SU1LfVLPHC", 4
    )


def test_hide_rows_rewrites_only_hidden_rows_and_keeps_the_alignment() -> None:
    rows = "\n".join(f"{n:>2}#{line_hash(f'x{n}', n)}:x{n}" for n in range(8, 13))
    hidden = KeyBlockLines([(1, 9), (11, 11), (40, 50)])
    shown = hide_rows(rows, hidden, 8).split("\n")
    assert shown[0] == f" 8#{_spell(8)}:{REDACTED}"
    assert shown[1] == f" 9#{_spell(9)}:{REDACTED}"
    assert shown[2] == rows.split("\n")[2]
    assert shown[3] == f"11#{_spell(11)}:{REDACTED}"
    assert shown[4] == rows.split("\n")[4]
    assert hide_rows(rows, KeyBlockLines(), 8) == rows
    assert hide_rows("", hidden) == ""
