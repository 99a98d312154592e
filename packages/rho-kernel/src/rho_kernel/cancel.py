"""Cooperative cancellation shared by the loop, providers and tools."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Cancelled(Exception):
    """Raised when work is abandoned because its CancelToken was cancelled."""


class CancelToken:
    """A one-shot cancellation flag that can also interrupt an awaited operation."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def cancel(self) -> None:
        """Request cancellation; idempotent."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether cancellation was requested."""
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise `Cancelled` when cancellation was requested."""
        if self._event.is_set():
            raise Cancelled()

    async def wait(self) -> None:
        """Wait until cancellation is requested."""
        await self._event.wait()

    async def run(self, awaitable: Awaitable[T]) -> T:
        """Await `awaitable`, abandoning it (task cancelled) as soon as this token is cancelled."""
        self.raise_if_cancelled()
        work = asyncio.ensure_future(awaitable)
        waiter = asyncio.ensure_future(self._event.wait())
        try:
            await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if work.done():
            return work.result()
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):  # abandoned: outcome unused
            await work
        raise Cancelled()
