"""Key material by its shape: slices of a key with no armour in sight, whole and streamed."""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Iterator

import pytest
from key_texts import body_lines, certificate, openssh_key, rsa_key, wrap  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED, Redactor, known_keys
from rho_kernel.security.key_shapes import redact_key_shapes

KEY = rsa_key(7)
BODY = body_lines(KEY)
LINES = KEY.splitlines()


@pytest.fixture(autouse=True)
def _no_learned_keys() -> Iterator[None]:
    """Shapes alone: no key learned by another test helps (or hinders) here."""
    known_keys.forget()
    yield
    known_keys.forget()


def _shown(text: str) -> str:
    return Redactor().redact(text)


def _streamed(text: str, size: int) -> str:
    stream = Redactor().stream()
    shown = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return "".join(shown) + stream.flush()


def _lines(first: int, last: int) -> str:
    """Lines `first` to `last` (1-based) of the key file, as `sed -n first,lastp` prints them."""
    return "\n".join(LINES[first - 1 : last]) + "\n"


SLICES = {
    "sed -n 10,16p": _lines(10, 16),
    "tail -n +5 | head -5": _lines(5, 9),
    "one line": _lines(12, 12),
    "tail -n 3": _lines(len(LINES) - 2, len(LINES)),
    "tail -n 2": _lines(len(LINES) - 1, len(LINES)),
    "cut -c1-20": "".join(line[:20] + "\n" for line in LINES),
    "cut -c30-45": "".join(line[29:45] + "\n" for line in LINES),
    "cat -n": "".join(f"{n:6}\t{line}\n" for n, line in enumerate(LINES, 1))[200:],
    "grep -n": "".join(f"{n}:{line}\n" for n, line in enumerate(LINES, 1) if "A" in line)[40:],
    "hashline rows": "".join(f"{n}#ZPMQ:{line}\n" for n, line in enumerate(LINES, 1))[60:],
    "a diff's hunk": " "
    + BODY[3]
    + "\n-"
    + BODY[4]
    + "\n+"
    + BODY[4][::-1]
    + "\n "
    + BODY[5]
    + "\n",
    "indented in YAML": "key: |\n" + "".join(f"    {line}\n" for line in BODY[2:9]),
    "CRLF": _lines(10, 16).replace("\n", "\r\n"),
    "OpenSSH, sed -n 3,6p": "\n".join(openssh_key(3).splitlines()[2:6]) + "\n",
}


@pytest.mark.parametrize("name", SLICES)
def test_a_slice_of_a_key_shows_none_of_its_body_whole_or_streamed(name: str) -> None:
    text = SLICES[name]
    secret = [
        piece for line in body_lines(KEY + openssh_key(3)) for piece in (line[:16], line[-16:])
    ]
    for shown in (_shown(text), *(_streamed(text, size) for size in (1, 5, 64, 200, 4096))):
        assert REDACTED in shown
        assert not any(piece in shown for piece in secret if len(piece) == 16), (name, shown)
        assert shown.count("\n") == text.count("\n")  # each line stays a line
    assert _shown(text) == _streamed(text, 7)


def test_the_row_prefix_of_a_hidden_line_is_kept() -> None:
    text = "".join(f"{n:6}\t{line}\n" for n, line in enumerate(LINES[9:12], 10))
    assert _shown(text) == f"    10\t{REDACTED}\n    11\t{REDACTED}\n    12\t{REDACTED}\n"


def _mime(data: bytes) -> str:
    return "\n".join(wrap(data, 76)) + "\n"


NOT_KEYS = {
    "a certificate": certificate(7),
    "MIME base64 (76 wide)": _mime(random.Random(3).randbytes(2000)),
    "sha256 digests": "".join(hashlib.sha256(bytes([n])).hexdigest() + "\n" for n in range(9)),
    "git object ids": "".join(hashlib.sha1(bytes([n])).hexdigest() + "\n" for n in range(9)),
    "base32 secrets list": "".join(
        base64.b32encode(random.Random(n).randbytes(40)).decode() + "\n" for n in range(5)
    ),
    "one sha256 in base64": base64.b64encode(hashlib.sha256(b"x").digest()).decode() + "\n",
    "two short base64 lines": "aGVsbG8gd29ybGQ=\ndGhpcyBpcyBhIHRlc3Q=\n",
    "words of one width": "continue\nfunction\nreturned\n",
    "a quoted test vector": '    "' + BODY[3] + '",\n',
    "a token in prose": f"the blob {BODY[3]} was sent\n",
}


@pytest.mark.parametrize("name", NOT_KEYS)
def test_what_is_no_key_is_left_alone(name: str) -> None:
    text = NOT_KEYS[name]
    assert _shown(text) == text
    assert _streamed(text, 13) == text


def test_a_certificate_cut_from_its_armour_is_a_run_of_key_lines() -> None:
    body = "\n".join(body_lines(certificate(7))[2:6]) + "\n"
    assert _shown(body) == f"{REDACTED}\n" * 4


def test_a_run_split_across_the_chunks_of_a_stream_is_judged_whole() -> None:
    text = "before\n" + "".join(line[:20] + "\n" for line in BODY) + "after\n"
    for cut in range(1, len(text)):
        stream = Redactor().stream()
        shown = stream.feed(text[:cut]) + stream.feed(text[cut:]) + stream.flush()
        assert shown == "before\n" + f"{REDACTED}\n" * len(BODY) + "after\n", cut


def test_a_long_run_is_released_before_it_ends_and_stays_hidden() -> None:
    lines = wrap(random.Random(5).randbytes(64 * 48 * 3), 64)
    stream = Redactor().stream()
    early = stream.feed("".join(line + "\n" for line in lines))
    assert early.count(REDACTED) >= len(lines) - 64  # not everything is held
    shown = early + stream.feed("done\n") + stream.flush()
    assert shown == f"{REDACTED}\n" * len(lines) + "done\n"


def test_a_public_armour_exempts_only_its_own_block() -> None:
    text = certificate(7) + _lines(10, 12)
    shown = redact_key_shapes(text)
    assert shown.startswith(certificate(7))
    assert shown.endswith(f"{REDACTED}\n" * 3)


def test_a_key_joined_on_one_line_is_hidden() -> None:
    joined = "".join(BODY) + "\n"
    assert _shown(joined) == f"{REDACTED}\n"
