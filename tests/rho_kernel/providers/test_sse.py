"""The incremental SSE parser: framing rules, split reads, recorded streams, speed."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.providers.sse import SSEEvent, SSEParser

STREAMS = Path(__file__).parents[2] / "fixtures" / "streams"


def parse(*chunks: bytes) -> list[SSEEvent]:
    parser = SSEParser()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


# Exercises every framing rule at once: comments, event names, ids, retry, multi-line data,
# all three line endings, a colon-less field, `data:` without a space, multi-byte characters
# (2, 3 and 4 bytes), an event without data, and a last event with no blank line after it.
MIXED = (
    "\ufeff: hello comment\r\n"
    "event: first\r\n"
    "id: 7\r\n"
    'data: {"a": "é"}\r\n'
    "\r\n"
    "data:no-space\n"
    "data:  two spaces\n"
    "data\n"
    "\n"
    "event: only-a-name\n"
    "\n"
    "retry: 1500\r"
    "data: 中文 😊\r"
    "\r"
    ": comment between\n"
    "id\n"
    "unknown: field\n"
    "data: last"
).encode()

MIXED_EVENTS = [
    SSEEvent('{"a": "é"}', "first", "7", None),
    SSEEvent("no-space\n two spaces\n", "message", "7", None),
    SSEEvent("中文 😊", "message", "7", 1500),
    SSEEvent("last", "message", "", None),
]


def test_mixed_stream_in_one_chunk() -> None:
    assert parse(MIXED) == MIXED_EVENTS


def test_mixed_stream_split_at_every_offset() -> None:
    for cut in range(len(MIXED) + 1):
        assert parse(MIXED[:cut], MIXED[cut:]) == MIXED_EVENTS, cut


def test_mixed_stream_one_byte_at_a_time() -> None:
    assert parse(*[MIXED[i : i + 1] for i in range(len(MIXED))]) == MIXED_EVENTS


# Every single cut and every byte alone are checked above; random sets of cuts add mixes.
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(MIXED)), max_size=30))
def test_mixed_stream_random_splits(cuts: list[int]) -> None:
    assert parse(*split_at(MIXED, cuts)) == MIXED_EVENTS


def test_data_lines_join_with_newline() -> None:
    assert parse(b"data: a\ndata: b\ndata: c\n\n") == [SSEEvent("a\nb\nc")]


def test_only_one_space_after_colon_is_dropped() -> None:
    assert parse(b"data:x\n\ndata: x\n\ndata:  x\n\n") == [
        SSEEvent("x"),
        SSEEvent("x"),
        SSEEvent(" x"),
    ]


def test_comments_and_blank_lines_alone_dispatch_nothing() -> None:
    assert parse(b": keep-alive\n\n: OPENROUTER PROCESSING\n\n\n\n") == []


def test_event_without_data_is_not_dispatched_and_name_resets() -> None:
    assert parse(b"event: ping\n\ndata: x\n\n") == [SSEEvent("x", "message")]


def test_empty_data_field_dispatches_empty_string() -> None:
    assert parse(b"data:\n\n") == [SSEEvent("")]


def test_event_name_applies_to_its_event_only() -> None:
    assert parse(b"event: error\ndata: {}\n\ndata: next\n\n") == [
        SSEEvent("{}", "error"),
        SSEEvent("next", "message"),
    ]


def test_final_event_without_blank_line_is_flushed_on_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: one\n\ndata: two\n") == [SSEEvent("one")]
    assert parser.close() == [SSEEvent("two")]


def test_unterminated_last_line_is_flushed_on_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: partial") == []
    assert parser.close() == [SSEEvent("partial")]


def test_crlf_split_between_reads_is_one_line_end() -> None:
    # CR at the end of one read and LF at the start of the next must not make a blank line.
    assert parse(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n") == [SSEEvent("a\nb")]
    assert parse(b"data: a\r", b"", b"\n\r\n") == [SSEEvent("a")]


def test_lone_cr_line_endings() -> None:
    assert parse(b"data: a\rdata: b\r\rdata: c\r\r") == [SSEEvent("a\nb"), SSEEvent("c")]


def test_multibyte_character_split_across_reads() -> None:
    raw = "data: 😊é中\n\n".encode()
    for cut in range(len(raw) + 1):
        assert parse(raw[:cut], raw[cut:]) == [SSEEvent("😊é中")]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert parse(b"data: \xff\xfe ok\n\n") == [SSEEvent("\ufffd\ufffd ok")]


def test_id_persists_and_nul_id_is_ignored() -> None:
    events = parse(b"id: 1\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\n")
    assert [event.id for event in events] == ["1", "1", "1"]


def test_retry_must_be_digits() -> None:
    events = parse(b"retry: 12x\ndata: a\n\nretry: 30\ndata: b\n\ndata: c\n\n")
    assert [event.retry for event in events] == [None, 30, None]


def test_no_dispatch_before_the_blank_line() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\n") == []
    assert parser.feed(b"\n") == [SSEEvent("a")]


def _framed(path: Path) -> tuple[bytes, list[str]]:
    payloads = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    stream = "".join(f": c\r\nevent: e\r\ndata: {p}\r\n\r\n" for p in payloads)
    return stream.encode(), payloads


def test_recorded_streams_decode_identically_when_split() -> None:
    files = sorted(STREAMS.glob("*.jsonl"))
    assert files
    for path in files:
        raw, payloads = _framed(path)
        whole = parse(raw)
        assert [event.data for event in whole] == payloads, path.name
        assert {event.event for event in whole} == {"e"}
        for size in (1, 2, 3, 7, 64, 1000):
            pieces = [raw[i : i + size] for i in range(0, len(raw), size)]
            assert parse(*pieces) == whole, (path.name, size)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_recorded_stream_random_splits(data: st.DataObject) -> None:
    raw, payloads = _framed(STREAMS / "chat--openai-gpt-4o-parallel-tool-calls.jsonl")
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(raw)), max_size=60))
    assert [event.data for event in parse(*split_at(raw, cuts))] == payloads


def test_throughput_on_recorded_streams() -> None:
    blobs = []
    for path in sorted(STREAMS.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        blobs.append("".join(f"data: {line}\n\n" for line in lines).encode())
    total = sum(len(blob) for blob in blobs)
    pieces = [[blob[i : i + 4096] for i in range(0, len(blob), 4096)] for blob in blobs]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for chunks in pieces:
            parse(*chunks)
        best = min(best, time.perf_counter() - start)
    # ~200 MB/s measured on a dev machine; the bound leaves room for slow CI machines.
    assert total / best > 5e6
