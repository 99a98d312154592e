"""Reading the end of a finished response aside, so that its connection can be used again.

A stream's decoder is done at its terminal event (`data: [DONE]`), but the HTTP body may
not have ended there: the chunked body's last chunk usually follows in the next packet.
Closing a response that was not read to its end closes its connection too, and every
request would then pay for a new connection (and, to a hosted provider, a TLS handshake).
So the service hands the rest of the body to a task that reads it, up to `DRAIN_BYTES`
bytes and `DRAIN_SECONDS` seconds, and then closes the response: read to its end, its
connection goes back to the client's pool; otherwise it is closed as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx

DRAIN_BYTES = 64 * 1024
"""At most this much of a body is read after its stream's terminal event."""

DRAIN_SECONDS = 5.0
"""At most this long is spent reading it (the reply is already with the caller)."""


class ResponseDrains:
    """The tasks reading finished responses to their end, one per response."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def add(self, chunks: AsyncIterator[bytes], cleanup: contextlib.AsyncExitStack) -> None:
        """Read what is left of `chunks` aside, then run `cleanup` (which closes the response)."""
        task = asyncio.get_running_loop().create_task(_drain(chunks, cleanup))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settle(self) -> None:
        """Wait until every response handed over has been read to its end, or given up."""
        while self._tasks:
            await asyncio.wait(tuple(self._tasks))

    async def cancel(self) -> None:
        """Stop reading: each response still being read is closed with its connection."""
        for task in tuple(self._tasks):
            task.cancel()
        await self.settle()


async def _drain(chunks: AsyncIterator[bytes], cleanup: contextlib.AsyncExitStack) -> None:
    async with cleanup:
        # Anything going wrong here only costs the connection: the reply is already decoded.
        with contextlib.suppress(httpx.HTTPError, OSError, TimeoutError):
            async with asyncio.timeout(DRAIN_SECONDS):
                read = 0
                async for chunk in chunks:
                    read += len(chunk)
                    if read > DRAIN_BYTES:
                        break
