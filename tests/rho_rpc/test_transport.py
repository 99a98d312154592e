"""read_lines over a real pipe: splitting, a final line without newline, oversize lines."""

from __future__ import annotations

import os
import threading

from rho_rpc.transport import Oversize, StdoutWriter, read_lines


async def _collect(chunks: list[bytes], max_line: int = 64) -> list[bytes | int]:
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        for chunk in chunks:
            os.write(write_fd, chunk)
        os.close(write_fd)

    threading.Thread(target=feed, daemon=True).start()
    lines: list[bytes | int] = []
    async for line in read_lines(read_fd, max_line=max_line):
        lines.append(line.size if isinstance(line, Oversize) else line)
    os.close(read_fd)
    return lines


async def test_lines_split_across_writes_and_final_line_without_newline() -> None:
    assert await _collect([b"ab", b"c\nde", b"f\n\ng", b"h"]) == [b"abc", b"def", b"", b"gh"]


async def test_oversize_line_is_dropped_and_reading_continues() -> None:
    lines = await _collect([b"x" * 50, b"y" * 50, b"z\nok\n", b"w" * 100])
    assert lines == [101, b"ok", 100]


async def test_oversize_within_one_chunk() -> None:
    assert await _collect([b"a" * 70 + b"\nshort\n"]) == [70, b"short"]


def test_writer_stops_quietly_when_the_reader_is_gone() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    closed: list[bool] = []
    writer = StdoutWriter(write_fd, on_closed=lambda: closed.append(True))
    writer.write_line(b"{}")
    writer.write_line(b"{}")
    os.close(write_fd)
    assert writer.closed and closed == [True]
