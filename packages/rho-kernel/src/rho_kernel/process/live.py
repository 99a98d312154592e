"""Live output of a running process, coalesced and throttled before it reaches the client."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import math
import time
from collections.abc import Awaitable, Callable

from rho_kernel.process.live_lines import LineFilter, LiveLines

#: `await sink(stream, text)`: receives live output ("stdout" or "stderr").
OutputCallback = Callable[[str, str], Awaitable[None]]

#: At most one notification per stream in this many seconds.
DEFAULT_INTERVAL = 0.1
#: At most this many characters per notification; of more in one interval, the lines in
#: the middle are skipped.
DEFAULT_MAX_CHUNK = 16384


class LiveOutput:
    """Feeds a process's output to `callback`, decoded as UTF-8 (invalid bytes replaced),
    at most once per `interval` per stream, in whole lines of at most `max_chunk`
    characters at a time (see `LiveLines`).

    Output arriving faster is coalesced; of what does not fit in one send, the first and
    the last lines are sent with `[… L lines (N characters) skipped …]` where the others
    were, so memory stays bounded. `line_filter` rewrites each line before it is sent. A
    callback that fails stops live output (the process keeps running). `close()` sends what
    is pending, the end of the output included. `clock` (seconds, monotonic) is for tests.
    """

    def __init__(
        self,
        callback: OutputCallback,
        *,
        interval: float = DEFAULT_INTERVAL,
        max_chunk: int = DEFAULT_MAX_CHUNK,
        line_filter: LineFilter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.callback: OutputCallback | None = callback
        self.interval = interval
        self.clock = clock
        self._decoders = {
            name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")
        }
        self._lines = {
            name: LiveLines(max_chunk, name, line_filter) for name in ("stdout", "stderr")
        }
        self.max_chunk = self._lines["stdout"].max_chunk
        # Nothing sent yet: the first chunk goes out at once, whatever the clock reads.
        self._last = {"stdout": -math.inf, "stderr": -math.inf}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()  # set by close(): send now

    def feed(self, stream: str, data: bytes) -> None:
        """Queue the next bytes of `stream`; a send is scheduled, never awaited here."""
        if self.callback is None:
            return
        self._lines[stream].feed(self._decoders[stream].decode(data))
        if stream not in self._timers or self._timers[stream].done():
            delay = max(0.0, self._last[stream] + self.interval - self.clock())
            self._timers[stream] = asyncio.ensure_future(self._send_later(stream, delay))

    async def _send_later(self, stream: str, delay: float) -> None:
        if delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
        await self._send(stream)

    async def _send(self, stream: str, *, final: bool = False) -> None:
        async with self._lock:  # one notification at a time, in order
            text = self._lines[stream].take(final=final)
            self._last[stream] = self.clock()
            if not text or self.callback is None:
                return
            try:
                await self.callback(stream, text)
            except Exception:  # a client that went away must not stop the command
                self.callback = None

    async def close(self) -> None:
        """Send everything still pending: the end of the output, its unfinished last line
        and the decoders' leftovers included."""
        self._wake.set()
        await asyncio.gather(*self._timers.values(), return_exceptions=True)
        for stream, decoder in self._decoders.items():
            self._lines[stream].feed(decoder.decode(b"", final=True))
            await self._send(stream, final=True)

    def abandon(self) -> None:
        """Stop without sending anything more (the call was cancelled)."""
        self.callback = None
        for task in self._timers.values():
            task.cancel()


__all__ = [
    "DEFAULT_INTERVAL",
    "DEFAULT_MAX_CHUNK",
    "LineFilter",
    "LiveOutput",
    "OutputCallback",
]
