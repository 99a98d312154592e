"""Newline-delimited JSON over stdio: a line reader for stdin and a writer for stdout."""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Callable

# asyncio is imported where lines are split: `StdinPump` and `StdoutWriter` start reading
# and write `ready` before it is loaded.

#: Longest accepted line; a longer one is discarded and answered with an error.
MAX_LINE_BYTES = 16 * 1024 * 1024

#: How much of the start of an oversize line is kept (enough to read a leading id).
OVERSIZE_PREFIX_BYTES = 4096

#: A UTF-8 byte order mark, ignored at the very start of the input.
UTF8_BOM = b"\xef\xbb\xbf"


class Oversize:
    """Stands in for a line longer than `MAX_LINE_BYTES`: its size and its first bytes only."""

    def __init__(self, size: int, prefix: bytes = b"") -> None:
        self.size = size
        self.prefix = prefix


def _head(buffer: bytearray, piece: bytes, keep: int) -> bytes:
    """The first `keep` bytes of `buffer + piece`, without joining them whole."""
    if len(buffer) >= keep:
        return bytes(buffer[:keep])
    return bytes(buffer) + piece[: keep - len(buffer)]


class StdinPump:
    """Reads `fd` on a daemon thread from the moment it is started, so that nothing a client
    writes waits on rho: what is read before a consumer attaches is held, in order, and
    handed over when it does (rho starts reading before its runtime loads)."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self._lock = threading.Lock()
        self._held: list[bytes] = []
        self._deliver: Callable[[bytes], None] | None = None

    def start(self) -> StdinPump:
        """Start reading; returns self."""
        threading.Thread(target=self._pump, name="rho-stdin", daemon=True).start()
        return self

    def attach(self, deliver: Callable[[bytes], None]) -> None:
        """Hand every chunk read so far, then each later one, to `deliver` (b"" at end of
        input); later chunks are handed over on the reading thread."""
        with self._lock:
            for data in self._held:
                deliver(data)
            self._held.clear()
            self._deliver = deliver

    def _pump(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            with self._lock:
                if self._deliver is None:
                    self._held.append(data)
                else:
                    self._deliver(data)
            if not data:
                return


async def read_lines(
    fd: int = 0, *, max_line: int = MAX_LINE_BYTES, pump: StdinPump | None = None
) -> AsyncIterator[bytes | Oversize]:
    """Yield complete lines (without the newline) from `fd` until end of input.

    Reading happens on a daemon thread (`pump`, already started, or one started now) so
    pipes, files and terminals all work; the final line need not end with a newline. A UTF-8
    byte order mark at the very start of the input is dropped. A line longer than `max_line`
    comes as an `Oversize` holding its first `OVERSIZE_PREFIX_BYTES` bytes.
    """
    at_start = True
    async for line in _split_lines(pump or StdinPump(fd).start(), max_line):
        if at_start:
            at_start = False
            line = _without_bom(line)
        yield line


def _without_bom(line: bytes | Oversize) -> bytes | Oversize:
    if isinstance(line, Oversize):
        if line.prefix.startswith(UTF8_BOM):
            return Oversize(line.size, line.prefix[len(UTF8_BOM) :])
        return line
    return line[len(UTF8_BOM) :] if line.startswith(UTF8_BOM) else line


async def _split_lines(pump: StdinPump, max_line: int) -> AsyncIterator[bytes | Oversize]:
    import asyncio

    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def deliver(data: bytes) -> None:
        loop.call_soon_threadsafe(chunks.put_nowait, data)

    pump.attach(deliver)
    buffer = bytearray()
    discarding = 0  # bytes dropped from an oversize line still being read
    prefix = b""  # the start of that line
    while True:
        data = await chunks.get()
        if not data:
            break
        start = 0
        while True:
            newline = data.find(b"\n", start)
            if newline < 0:
                piece = data[start:]
                if discarding:
                    discarding += len(piece)
                elif len(buffer) + len(piece) > max_line:
                    discarding = len(buffer) + len(piece)
                    prefix = _head(buffer, piece, OVERSIZE_PREFIX_BYTES)
                    buffer.clear()
                else:
                    buffer += piece
                break
            piece = data[start:newline]
            start = newline + 1
            if discarding:
                yield Oversize(discarding + len(piece), prefix)
                discarding = 0
            elif len(buffer) + len(piece) > max_line:
                size = len(buffer) + len(piece)
                head = _head(buffer, piece, OVERSIZE_PREFIX_BYTES)
                buffer.clear()
                yield Oversize(size, head)
            else:
                buffer += piece
                line = bytes(buffer)
                buffer.clear()
                yield line
    if discarding:
        yield Oversize(discarding, prefix)
    elif buffer:
        yield bytes(buffer)


class StdoutWriter:
    """Writes one protocol line at a time to stdout; stops quietly when the reader went away."""

    def __init__(self, fd: int = 1, on_closed: Callable[[], None] | None = None) -> None:
        self.fd = fd
        self.closed = False
        self.on_closed = on_closed

    def write_line(self, data: bytes) -> None:
        if self.closed:
            return
        view = memoryview(data + b"\n")
        try:
            while view:
                written = os.write(self.fd, view)
                view = view[written:]
        except (BrokenPipeError, OSError):
            self.closed = True
            if self.on_closed:
                self.on_closed()
