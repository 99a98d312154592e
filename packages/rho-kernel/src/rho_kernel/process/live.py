"""Live output of a running process, coalesced and throttled before it reaches the client."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import math
import time
from collections.abc import Awaitable, Callable

#: `await sink(stream, text)`: receives live output ("stdout" or "stderr").
OutputCallback = Callable[[str, str], Awaitable[None]]

#: At most one notification per stream in this many seconds.
DEFAULT_INTERVAL = 0.1
#: At most this many characters per notification; more in one interval is skipped.
DEFAULT_MAX_CHUNK = 16384


class LiveOutput:
    """Feeds a process's output to `callback`, decoded as UTF-8 (invalid bytes replaced),
    at most once per `interval` per stream and at most `max_chunk` characters at a time.

    Output arriving faster is coalesced; what does not fit in a chunk is skipped and the
    next chunk starts with `[… N characters skipped …]`, so memory stays bounded. A
    callback that fails stops live output (the process keeps running). `close()` sends
    what is pending.
    """

    def __init__(
        self,
        callback: OutputCallback,
        *,
        interval: float = DEFAULT_INTERVAL,
        max_chunk: int = DEFAULT_MAX_CHUNK,
    ) -> None:
        self.callback: OutputCallback | None = callback
        self.interval = interval
        self.max_chunk = max(max_chunk, 64)
        self._decoders = {
            name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")
        }
        self._pending: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self._sizes = {"stdout": 0, "stderr": 0}
        self._skipped = {"stdout": 0, "stderr": 0}
        # Nothing sent yet: the first chunk goes out at once, whatever the clock reads.
        self._last = {"stdout": -math.inf, "stderr": -math.inf}
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()  # set by close(): send now

    def feed(self, stream: str, data: bytes) -> None:
        """Queue the next bytes of `stream`; a send is scheduled, never awaited here."""
        if self.callback is None:
            return
        text = self._decoders[stream].decode(data)
        room = self.max_chunk - self._sizes[stream]
        if len(text) > room:
            self._skipped[stream] += len(text) - max(room, 0)
            text = text[: max(room, 0)]
        if text:
            self._pending[stream].append(text)
            self._sizes[stream] += len(text)
        if stream not in self._timers or self._timers[stream].done():
            delay = max(0.0, self._last[stream] + self.interval - time.monotonic())
            self._timers[stream] = asyncio.ensure_future(self._send_later(stream, delay))

    async def _send_later(self, stream: str, delay: float) -> None:
        if delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
        await self._send(stream)

    async def _send(self, stream: str) -> None:
        async with self._lock:  # one notification at a time, in order
            text = "".join(self._pending[stream])
            if self._skipped[stream]:
                text = f"[… {self._skipped[stream]} characters skipped …]\n{text}"
            self._pending[stream], self._sizes[stream], self._skipped[stream] = [], 0, 0
            self._last[stream] = time.monotonic()
            if not text or self.callback is None:
                return
            try:
                await self.callback(stream, text)
            except Exception:  # a client that went away must not stop the command
                self.callback = None

    async def close(self) -> None:
        """Send everything still pending (the decoders' leftovers included)."""
        self._wake.set()
        await asyncio.gather(*self._timers.values(), return_exceptions=True)
        for stream, decoder in self._decoders.items():
            tail = decoder.decode(b"", final=True)
            if tail:
                self._pending[stream].append(tail)
            await self._send(stream)

    def abandon(self) -> None:
        """Stop without sending anything more (the call was cancelled)."""
        self.callback = None
        for task in self._timers.values():
            task.cancel()


__all__ = ["DEFAULT_INTERVAL", "DEFAULT_MAX_CHUNK", "LiveOutput", "OutputCallback"]
