"""Keys rho has seen: a slice of one is redacted wherever it appears, and their public halves
are not."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from key_texts import body_lines, certificate, rsa_key, ssh_public_key  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED, KeyBlockLines, Redactor, known_keys

KEY = rsa_key(11)
BODY = body_lines(KEY)


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    known_keys.forget()
    yield
    known_keys.forget()


def _learn() -> None:
    assert Redactor().redact(KEY) == REDACTED + "\n"  # the block is redacted, and learned


def test_a_slice_too_narrow_for_its_shape_is_found_once_the_key_is_seen() -> None:
    two = "".join(line[:12] + "\n" for line in BODY[4:6])  # `cut -c1-12 key.pem | sed -n 5,6p`
    assert Redactor().redact(two) == two  # two lines of 12: no shape of a key
    _learn()
    assert Redactor().redact(two) == f"{REDACTED}\n{REDACTED}\n"


@pytest.mark.parametrize(
    "text",
    [
        BODY[9][20:36],  # the middle of a line
        BODY[9][-12:],  # its end, 12 characters
        "10" + BODY[9],  # glued to a line number (`awk '{print NR $0}'`)
        json.dumps({"line": BODY[9][5:40]}),
        f"grep: {BODY[9][3:22]}: no match",
        BODY[9][30:] + BODY[10][:30],  # two lines joined
    ],
)
def test_a_piece_of_a_learned_key_line_is_redacted_anywhere(text: str) -> None:
    _learn()
    shown = Redactor().redact(text)
    assert REDACTED in shown
    assert not any(line[i : i + 12] in shown for line in BODY for i in range(len(line) - 11))


def test_a_key_read_by_lines_is_learned_too() -> None:
    assert KeyBlockLines.of("# deploy\n" + KEY).ranges == ((2, len(BODY) + 3),)
    assert Redactor().redact(BODY[3][:20]) == REDACTED


def test_the_public_halves_and_the_shared_header_stay_visible() -> None:
    _learn()
    for public in (certificate(11), ssh_public_key(11)):
        assert Redactor().redact(public) == public
    # the DER header every RSA key starts with, which certificates hold too
    assert Redactor().redact(BODY[0][:30]) == BODY[0][:30]


def test_padding_and_near_constant_pieces_are_not_learned() -> None:
    known_keys.learn_lines(["-----BEGIN PRIVATE KEY-----", "A" * 64, "AAAAAAAAAAAB" * 5])
    assert not known_keys.known()


def test_what_is_learned_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(known_keys, "MAX_WINDOWS", 100)
    _learn()
    assert len(known_keys._windows) == 100
    Redactor().redact(rsa_key(12))
    assert len(known_keys._windows) == 100


def test_no_text_of_the_key_is_kept() -> None:
    _learn()
    assert all(isinstance(piece, int) for piece in known_keys._windows)
