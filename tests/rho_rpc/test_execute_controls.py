"""Control sequences removed from the model's and tools' text before `rho exec` prints it:
each kind of sequence, split anywhere across deltas, and never anything a terminal obeys."""

from __future__ import annotations

import io
import random
import re

import pytest

from rho_rpc.execute.controls import ControlStripper, StrippedStream, strip_controls

#: What a terminal could obey or reorder by: controls but newline and tab, DEL, C1, bidi.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("a\x1b]52;c;ZWNobyBwd25lZA==\x07b", "ab"),  # OSC 52 (clipboard), BEL-terminated
        ("a\x1b]52;c;ZWNobyBwd25lZA==\x1b\\b", "ab"),  # … ST-terminated
        ("a\x1b]0;title\x07b\x1b]2;title\x1b\\c", "abc"),  # window title
        ("a\x1b[2J\x1b[H\x1b[3;4Hb", "ab"),  # clear the screen, move the cursor
        ("a\x1b[38;2;1;2;3mb\x1b[0m", "ab"),  # colours
        ("a\x1b[?1049hb\x1b[>c", "ab"),  # private CSI
        ("a\x1bcb", "ab"),  # RIS: reset the terminal
        ("a\x1b7\x1b8\x1bM\x1b=b", "ab"),  # two-character escapes
        ("a\x1b(B\x1b#8b", "ab"),  # escapes with intermediates
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS (sixel)
        ("a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d", "abcd"),  # APC, PM, SOS
        ("a\x9b2Jb", "ab"),  # 8-bit CSI
        ("a\x9d52;c;cHduZWQ=\x9cb", "ab"),  # 8-bit OSC ended by 8-bit ST
        ("a\x90qdcs\x9cb\x9f apc\x07c", "abc"),  # 8-bit DCS and APC
        ("a\x85\x8d\x9cb", "ab"),  # other C1 controls
        ("a\rb\x08c\x00d\x7fe\x07f\x0bg\x0ch", "abcdefgh"),  # C0 controls and DEL
        ("line\n\tindented\n", "line\n\tindented\n"),  # newline and tab stay
        ("a\u202eb\u202dc\u2066d\u2069e", "abcde"),  # bidi overrides and isolates
        ("café — 日本語 🙂", "café — 日本語 🙂"),  # text stays as it is
        ("a\x1b]52;c;never ended", "a"),  # an unterminated string runs to the end
        ("a\x1b[12\nb", "a\nb"),  # a broken CSI: what broke it is text
        ("a\x1b]0;t\x1b[31mb", "ab"),  # ESC inside a string ends it and starts another
        ("a\x1b[1\x18b\x1b]0;x\x1ac", "abc"),  # CAN and SUB cancel a sequence
        ("a\x1b\x1b\x1b[0mb", "ab"),  # repeated ESC
        ("a\x1b\u00e9b", "a\u00e9b"),  # ESC before non-ASCII: not a sequence
    ],
)
def test_each_kind_of_sequence_is_removed_and_text_kept(written: str, shown: str) -> None:
    assert strip_controls(written) == shown
    assert not UNSAFE.search(strip_controls(written))


def test_a_sequence_split_across_deltas_is_removed_whole() -> None:
    stripper = ControlStripper()
    deltas = ["Here ", "\x1b", "]5", "2;c;ZWNobyBw", "d25lZA==", "\x1b", "\\", " done"]
    assert "".join(stripper.feed(delta) for delta in deltas) == "Here  done"
    stripper = ControlStripper()
    assert [stripper.feed(d) for d in ["a\x9d", "0;title", "\x9c", "b"]] == ["a", "", "", "b"]


#: Characters that make up sequences, mixed with text, for the random cases.
ALPHABET = "ab \n\t\x1b\x07\x9b\x9c\x9d\x90\x18[]\\P_^X0;2Jc(B\u202e\u00e9\r"


def test_any_split_of_any_text_gives_the_same_safe_text() -> None:
    generator = random.Random(43)
    for _ in range(2000):
        text = "".join(generator.choice(ALPHABET) for _ in range(generator.randint(0, 40)))
        whole = strip_controls(text)
        assert not UNSAFE.search(whole), repr(text)
        cuts = sorted(generator.sample(range(len(text) + 1), min(4, len(text) + 1)))
        stripper = ControlStripper()
        pieces = [
            text[start:end] for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True)
        ]
        assert "".join(stripper.feed(piece) for piece in pieces) == whole, repr(text)


def test_reset_forgets_a_sequence_left_open() -> None:
    stripper = ControlStripper()
    assert stripper.feed("a\x1b]0;unterminated") == "a"
    assert stripper.feed("still inside") == ""
    stripper.reset()
    assert stripper.feed("next message") == "next message"


def test_carriage_return_may_be_kept() -> None:
    assert strip_controls("50%\r100%\x1b[K\n", keep="\n\t\r") == "50%\r100%\n"


def test_a_stripped_stream_writes_text_only_and_passes_the_rest_through() -> None:
    target = io.StringIO()
    stream = StrippedStream(target)
    assert stream.write("rho: warning: \x1b]52;c;") == len("rho: warning: \x1b]52;c;")
    stream.write("cHduZWQ=\x07denied x\x1b[2J\n")
    stream.flush()
    assert target.getvalue() == "rho: warning: denied x\n"
    assert stream.isatty() is False and stream.getvalue() == target.getvalue()
