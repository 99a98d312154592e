"""Live output in whole lines: whatever the chunk boundaries, what is sent is the output's
lines in order, with a marker exactly where lines were skipped that says what they were."""

from __future__ import annotations

import itertools
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.process import LiveLines

MARKER = re.compile(r"^\[… (\d+) lines? \((\d+) characters\) skipped …\]\n$")
INLINE = re.compile(r"^(.*)\[… (\d+) characters skipped …\](.*)$", re.DOTALL)
CHUNK = 1024


def check_against(chunks: list[str], original: str, max_chunk: int = CHUNK) -> int:
    """Assert that `chunks` are `original` with lines skipped (each gap marked, saying how
    many lines and characters) or shortened; return how many markers there were."""
    for chunk in chunks[:-1]:
        assert chunk == "" or chunk.endswith("\n"), chunk[-40:]
    for chunk in chunks:
        assert len(chunk) <= max_chunk
        assert len(MARKER.findall("\n".join(chunk.splitlines(keepends=True)))) <= 1
    lines = original.splitlines(keepends=True)
    at, markers = 0, 0
    for line in "".join(chunks).splitlines(keepends=True):
        if match := MARKER.match(line):
            count, chars = int(match.group(1)), int(match.group(2))
            assert count >= 1 and at + count <= len(lines)
            assert sum(len(skipped) for skipped in lines[at : at + count]) == chars
            at, markers = at + count, markers + 1
            continue
        assert at < len(lines), f"sent a line the output never had: {line!r}"
        want = lines[at]
        if line != want:
            match = INLINE.match(line)
            assert match is not None, (line, want)
            head, count, tail = match.group(1), int(match.group(2)), match.group(3)
            assert want.startswith(head) and want.endswith(tail)
            assert len(head) + count + len(tail) == len(want)
        at += 1
    assert at == len(lines), "the end of the output was never sent"
    return markers


def feed_all(lines: LiveLines, pieces: list[str], takes: set[int]) -> list[str]:
    chunks = []
    for index, piece in enumerate(pieces):
        lines.feed(piece)
        if index in takes:
            chunks.append(lines.take())
    chunks.append(lines.take(final=True))
    return chunks


def cut(text: str, points: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(p % (len(text) + 1) for p in points)})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def _xy_line(length_and_seed: tuple[int, int]) -> str:
    length, seed = length_and_seed
    return "".join(random.Random(seed).choices("xy", k=length))


# A long line is drawn as its length and a seed for its x/y content: drawing its hundreds of
# characters one by one was most of these tests' time, and the content only has to vary so
# that a shortened line's head and tail are checked against the right places.
LONG_LINE = st.tuples(st.integers(200, 1500), st.integers(0, 2**32 - 1)).map(_xy_line)
LINE = st.one_of(
    st.text(alphabet="ab é\t", max_size=40),
    LONG_LINE,  # longer than a quarter chunk
)
OUTPUT = st.lists(LINE, max_size=150).map("\n".join) | st.lists(LINE, max_size=150).map(
    lambda lines: "".join(f"{line}\n" for line in lines)
)


@settings(max_examples=150, deadline=None)
@given(OUTPUT, st.lists(st.integers(min_value=0), max_size=60), st.sets(st.integers(0, 60)))
def test_any_chunking_gives_whole_lines_in_order_with_gaps_marked(
    text: str, points: list[int], takes: set[int]
) -> None:
    chunks = feed_all(LiveLines(CHUNK), cut(text, points), takes)
    check_against(chunks, text)


@settings(max_examples=100, deadline=None)
@given(OUTPUT, st.lists(st.integers(min_value=0), max_size=60))
def test_one_send_is_head_marker_tail(text: str, points: list[int]) -> None:
    (chunk,) = feed_all(LiveLines(CHUNK), cut(text, points), set())
    markers = check_against([chunk], text)
    assert markers <= 1
    if len(text) <= CHUNK // 2 and all(len(line) <= CHUNK // 4 for line in text.split("\n")):
        assert chunk == text  # nothing to skip or shorten: all of it, untouched


def test_two_hundred_thousand_lines_keep_their_first_and_last_lines() -> None:
    text = "".join(f"{n}\n" for n in range(1, 200_001))
    lines = LiveLines(16384)
    for start in range(0, len(text), 65536):
        lines.feed(text[start : start + 65536])
    chunk = lines.take(final=True)
    assert chunk.startswith("1\n2\n3\n") and chunk.endswith("199999\n200000\n")
    assert check_against([chunk], text, 16384) == 1
    kept = chunk.splitlines()
    gap = next(i for i, line in enumerate(kept) if line.startswith("[…"))
    skipped = int(kept[gap + 1]) - int(kept[gap - 1]) - 1
    assert kept[gap].startswith(f"[… {skipped} lines (")


def test_an_endless_line_is_held_bounded_and_keeps_both_ends() -> None:
    lines = LiveLines(CHUNK)
    lines.feed("start")
    for _ in range(1000):
        lines.feed("x" * 1000)
        assert lines.take() == ""  # not a whole line yet
        assert lines._splitter.held <= CHUNK  # bounded, however long the line
    lines.feed("end\nnext\n")
    chunk = lines.take()
    assert chunk.startswith("start") and chunk.endswith("xend\nnext\n")
    assert "[… " in chunk and len(chunk) <= CHUNK
    assert lines._splitter.held == 0


def test_the_unfinished_last_line_is_sent_only_at_the_end() -> None:
    lines = LiveLines(CHUNK)
    lines.feed("one\ntw")
    assert lines.take() == "one\n"
    lines.feed("o")
    assert lines.take() == ""
    assert lines.take(final=True) == "two"


@settings(max_examples=60, deadline=None)
@given(OUTPUT, st.lists(st.integers(min_value=0), max_size=30), st.sets(st.integers(0, 30)))
def test_a_filter_sees_whole_lines_and_rewrites_them(
    text: str, points: list[int], takes: set[int]
) -> None:
    seen: list[str] = []

    def shout(stream: str, line: str) -> str | None:
        seen.append(line)
        return None if line.startswith("b") else line.upper()

    chunks = feed_all(LiveLines(CHUNK, "stdout", shout), cut(text, points), takes)
    assert seen == text.split("\n")[: len(seen)] and len(seen) == len(text.splitlines())
    shown = [line.upper() for line in text.splitlines(keepends=True) if not line.startswith("b")]
    check_against(chunks, "".join(shown))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 120), max_size=40), st.integers(4, 50))
def test_the_quick_long_line_check_never_misses_one(lengths: list[int], limit: int) -> None:
    from rho_kernel.process.live_lines import _may_hold_a_long_line

    block = "".join("x" * n + "\n" for n in lengths)
    if max(lengths, default=0) > limit:
        assert _may_hold_a_long_line(block, limit)
    elif not _may_hold_a_long_line(block, limit):
        assert all(n <= limit for n in lengths)


@settings(max_examples=60, deadline=None)
@given(OUTPUT, st.lists(st.integers(min_value=0), max_size=40))
def test_live_output_of_bytes_cut_anywhere_is_the_same_whole_lines(
    text: str, points: list[int]
) -> None:
    import asyncio

    from rho_kernel.process import LiveOutput

    data = text.encode()
    bounds = sorted({0, len(data), *(p % (len(data) + 1) for p in points)})
    sent: list[str] = []

    async def sink(stream: str, chunk: str) -> None:
        sent.append(chunk)

    async def run() -> None:
        live = LiveOutput(sink, interval=3600, max_chunk=CHUNK, clock=lambda: 10.0)
        for start, end in itertools.pairwise(bounds):
            live.feed("stdout", data[start:end])  # UTF-8 sequences cut anywhere
            await asyncio.sleep(0)
        await live.close()

    asyncio.run(run())
    check_against(sent, text)
