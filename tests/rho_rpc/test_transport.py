"""read_lines over a real pipe: splitting, a final line without newline, oversize lines, BOM."""

from __future__ import annotations

import os
import threading

from rho_rpc.transport import (
    OVERSIZE_PREFIX_BYTES,
    UTF8_BOM,
    Oversize,
    StdinPump,
    StdoutWriter,
    read_lines,
)


async def _read(chunks: list[bytes], max_line: int = 64) -> list[bytes | Oversize]:
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        for chunk in chunks:
            os.write(write_fd, chunk)
        os.close(write_fd)

    threading.Thread(target=feed, daemon=True).start()
    lines = [line async for line in read_lines(read_fd, max_line=max_line)]
    os.close(read_fd)
    return lines


async def _collect(chunks: list[bytes], max_line: int = 64) -> list[bytes | int]:
    lines = await _read(chunks, max_line)
    return [line.size if isinstance(line, Oversize) else line for line in lines]


async def test_lines_split_across_writes_and_final_line_without_newline() -> None:
    assert await _collect([b"ab", b"c\nde", b"f\n\ng", b"h"]) == [b"abc", b"def", b"", b"gh"]


async def test_oversize_line_is_dropped_and_reading_continues() -> None:
    lines = await _collect([b"x" * 50, b"y" * 50, b"z\nok\n", b"w" * 100])
    assert lines == [101, b"ok", 100]


async def test_oversize_within_one_chunk() -> None:
    assert await _collect([b"a" * 70 + b"\nshort\n"]) == [70, b"short"]


async def test_an_oversize_line_keeps_only_its_first_bytes() -> None:
    head = b'{"id":7,"params":"'
    lines = await _read([head, b"x" * (OVERSIZE_PREFIX_BYTES * 3), b"\n", b"ok\n"], max_line=8192)
    first, second = lines
    assert isinstance(first, Oversize) and first.size == len(head) + OVERSIZE_PREFIX_BYTES * 3
    assert first.prefix == (head + b"x" * OVERSIZE_PREFIX_BYTES)[:OVERSIZE_PREFIX_BYTES]
    assert second == b"ok"


async def test_an_oversize_line_within_one_chunk_and_at_end_of_input_keeps_its_start() -> None:
    lines = await _read([b"abc" + b"d" * 100 + b"\nshort\n" + b"e" * 70], max_line=64)
    assert isinstance(lines[0], Oversize) and lines[0].prefix == b"abc" + b"d" * 100
    assert lines[1] == b"short"
    assert isinstance(lines[2], Oversize) and lines[2].prefix == b"e" * 70


async def test_a_byte_order_mark_is_dropped_only_at_the_start_of_input() -> None:
    lines = await _read([UTF8_BOM[:1], UTF8_BOM[1:] + b"{}\n", UTF8_BOM + b"{}\n"])
    assert lines == [b"{}", UTF8_BOM + b"{}"]


async def test_a_byte_order_mark_before_an_oversize_first_line_is_dropped() -> None:
    [line] = await _read([UTF8_BOM + b"z" * 100], max_line=64)
    assert isinstance(line, Oversize) and line.prefix == b"z" * 100


def test_writer_stops_quietly_when_the_reader_is_gone() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    closed: list[bool] = []
    writer = StdoutWriter(write_fd, on_closed=lambda: closed.append(True))
    writer.write_line(b"{}")
    writer.write_line(b"{}")
    os.close(write_fd)
    assert writer.closed and closed == [True]


async def test_what_is_read_before_the_lines_are_wanted_comes_first_and_in_order() -> None:
    read_fd, write_fd = os.pipe()
    pump = StdinPump(read_fd).start()
    os.write(write_fd, b'{"id":1}\n{"id"')
    os.write(write_fd, b":2}\n")
    os.close(write_fd)  # end of input, all of it before anyone reads a line
    lines = [line async for line in read_lines(pump=pump)]
    assert lines == [b'{"id":1}', b'{"id":2}']
    os.close(read_fd)


def test_a_pump_hands_over_what_it_holds_then_each_later_chunk() -> None:
    read_fd, write_fd = os.pipe()
    pump = StdinPump(read_fd).start()
    os.write(write_fd, b"early")
    got: list[bytes] = []
    arrived = threading.Event()

    def deliver(data: bytes) -> None:
        got.append(data)
        if b"late" in data or not data:
            arrived.set()

    pump.attach(deliver)  # held or not yet read: "early" comes first either way
    os.write(write_fd, b"late")
    assert arrived.wait(30)
    os.close(write_fd)
    assert b"".join(got).startswith(b"earlylate")
    os.close(read_fd)
