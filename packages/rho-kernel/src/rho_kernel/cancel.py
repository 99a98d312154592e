"""Cooperative cancellation shared by the loop, providers and tools."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class Cancelled(Exception):
    """Raised when work is abandoned because its CancelToken was cancelled."""


class CancelToken:
    """A one-shot cancellation flag that can also interrupt an awaited operation."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        #: The work `run` awaits now, and which of it the token has stopped.
        self._running: set[asyncio.Future[Any]] = set()
        self._stopped: set[asyncio.Future[Any]] = set()

    def cancel(self) -> None:
        """Request cancellation (idempotent): the work `run` awaits is stopped."""
        if self._event.is_set():
            return
        self._event.set()
        for work in self._running:
            if work.cancel():
                self._stopped.add(work)

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
        """Await `awaitable`, cancelling its task as soon as this token is cancelled.

        Raises `Cancelled` when the work was stopped. Work that finishes anyway — it was
        already done, or it shields a step that cannot stop half-way (`run_to_completion`)
        and returns its result — is reported as finished: its result is returned, so a
        completed side effect is never presented as cancelled.
        """
        if self._event.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()  # never started: closed, not left for the collector to warn
            raise Cancelled()
        # One task for the work, which `cancel` stops: no task waiting for the token, and
        # no `asyncio.wait`, for each of the loop's many steps.
        work = asyncio.ensure_future(awaitable)
        self._running.add(work)
        try:
            return await work
        except asyncio.CancelledError:
            if work not in self._stopped or _cancelling():
                raise  # not the token's doing (the caller itself is being cancelled)
            raise Cancelled() from None
        except Exception:
            if work not in self._stopped:
                raise
            raise Cancelled() from None  # stopped part-way: the failure is moot once cancelled
        finally:
            self._running.discard(work)
            self._stopped.discard(work)


def _cancelling() -> bool:
    """Whether the current task has been asked to stop."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def run_to_completion(func: Callable[..., T], /, *args: Any) -> T:
    """Run blocking `func(*args)` in a worker thread and always wait for its outcome.

    For a step with side effects that cannot stop half-way, such as writing a file: when the
    awaiting task is cancelled (an abort, a signal), the thread is not abandoned — its result
    (or exception) is still awaited and returned, so the caller reports what really happened.
    """
    future = asyncio.ensure_future(asyncio.to_thread(func, *args))
    while True:
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # the cancellation is answered by finishing, not by stopping


__all__ = ["CancelToken", "Cancelled", "run_to_completion"]
