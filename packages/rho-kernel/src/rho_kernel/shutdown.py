"""Ending a front end's process in bounded time, whatever the work it ran is doing.

Once rho has been told to stop (its input ended, a signal came), the work still running is
cancelled and given `SHUTDOWN_GRACE` seconds to wind down (`Winding`). Work that cannot be
stopped — a thread blocked in a system call, such as `open()` of a FIFO that no one will
ever open for writing, or a step that finishes what it started whatever happens — must not
keep rho alive: `run` runs rho's event loop so that leaving it never waits on such work, and
when some is left, exits the process at once (stdout and stderr flushed; the session is
flushed entry by entry as it is written) instead of waiting for threads the interpreter
would join.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

_T = TypeVar("_T")

#: Seconds the work still running when rho is told to stop has to wind down, once it was
#: cancelled; work still running after that is abandoned.
SHUTDOWN_GRACE = 15.0
#: The exit status of a run ended by Ctrl-C (SIGINT), as shells report it.
INTERRUPTED = 130


class Workers(ThreadPoolExecutor):
    """The event loop's default executor (`asyncio.to_thread`), counting the calls still
    running, so that leaving can wait for them a bounded time instead of joining its
    threads."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="rho-worker")
        self._idle = threading.Condition()
        self._running = 0

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run `fn(*args, **kwargs)` on a worker thread (counted until it ends)."""
        future = super().submit(fn, *args, **kwargs)
        with self._idle:
            self._running += 1
        future.add_done_callback(self._done)
        return future

    def _done(self, _: Future[Any]) -> None:
        with self._idle:
            self._running -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds until no call runs; whether none does."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, max(timeout, 0.0))


class Winding:
    """The grace given to work once rho is told to stop: `start()` it then (again: no
    effect); `settle(task)` awaits a task until it ends or the grace is over."""

    def __init__(self, grace: float = SHUTDOWN_GRACE) -> None:
        self.grace = grace
        self._over = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def started(self) -> bool:
        """Whether rho has been told to stop."""
        return self._timer is not None or self._over.is_set()

    @property
    def over(self) -> bool:
        """Whether the grace is over (work still running then is abandoned)."""
        return self._over.is_set()

    def start(self) -> None:
        """Rho is told to stop: the grace starts now."""
        if not self.started:
            self._timer = asyncio.get_running_loop().call_later(self.grace, self._over.set)

    def end_now(self) -> None:
        """Give up waiting at once (a second signal)."""
        self._over.set()

    async def settle(self, task: asyncio.Future[Any]) -> bool:
        """Wait for `task`; when the grace is over first, cancel it and return False (it is
        not waited for any longer)."""
        over = asyncio.ensure_future(self._over.wait())
        try:
            await asyncio.wait({task, over}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            over.cancel()
        if task.done():
            return True
        task.cancel()
        return False


def run_to_end(
    main: Coroutine[Any, Any, int],
    *,
    grace: float = SHUTDOWN_GRACE,
    winding: Winding | None = None,
) -> int:
    """Run `main` on a new event loop and return its exit status (`INTERRUPTED` on Ctrl-C
    before rho handles it); work left running is cancelled and given `grace` seconds — none
    when `main`'s `winding` is over, since work was abandoned already — and when some cannot
    be stopped the process exits here, without waiting for it."""
    loop = asyncio.new_event_loop()
    workers = Workers()
    loop.set_default_executor(workers)
    asyncio.set_event_loop(loop)
    failure: Exception | None = None
    try:
        status = loop.run_until_complete(main)
    except KeyboardInterrupt:
        status = INTERRUPTED
    except Exception as exc:  # raised again below, unless rho must leave at once
        failure, status = exc, 1
    finally:
        spent = winding is not None and winding.over
        stuck = _wind_down(loop, workers, 0.0 if spent else grace)
        asyncio.set_event_loop(None)
        loop.close()
    stop_children()
    if stuck:
        if failure is not None:
            from rho_kernel import diagnostics

            diagnostics.error(f"internal error: {type(failure).__name__}: {failure}")
        leave_now(status)
    if failure is not None:
        raise failure
    return status


def _wind_down(loop: asyncio.AbstractEventLoop, workers: Workers, grace: float) -> bool:
    """Cancel the tasks left on `loop`; within `grace` seconds in all, wait for them, for
    the calls running on worker threads and for the threads the interpreter would join;
    True when something still runs then (the worker threads are not joined)."""
    deadline = time.monotonic() + grace
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        task.cancel()
    with contextlib.suppress(KeyboardInterrupt):
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=grace))
        loop.run_until_complete(_bounded(loop.shutdown_asyncgens(), _left(deadline)))
    for task in left:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: a failure while winding down is not reported
    idle = workers.wait_idle(_left(deadline))
    workers.shutdown(wait=idle, cancel_futures=True)
    return not idle or any(not task.done() for task in left) or not _threads_end(deadline)


async def _bounded(work: Coroutine[Any, Any, None], seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(work, max(seconds, 0.0))


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _threads_end(deadline: float) -> bool:
    """Wait until `deadline` for the threads the interpreter would join at exit (not
    daemons); whether they all ended."""
    for thread in threading.enumerate():
        if thread is threading.main_thread() or thread.daemon:
            continue
        thread.join(_left(deadline))
        if thread.is_alive():
            return False
    return True


def stop_children() -> None:
    """Kill the processes this one started that still run (with their process group when
    they lead one): whatever started them has given up on them — a `git` blocked on a
    FIFO, say — and nothing rho starts may outlive it. Commands are stopped before this, by
    the process runner; this is for the rest."""
    for pid in _children():
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)


def _children() -> set[int]:
    """The pids of this process's children (Linux's /proc; none found elsewhere)."""
    me = os.getpid()
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{me}/task"):
            with open(f"/proc/{me}/task/{task}/children") as listing:
                found.update(int(pid) for pid in listing.read().split())
    except (OSError, ValueError):  # no `children` files: every process's parent is read
        found = {pid for pid in _all_pids() if _parent_of(pid) == me}
    return found


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def leave_now(status: int) -> None:
    """Exit the process with `status` at once: its children stopped (`stop_children`),
    stdout and stderr flushed, no thread waited for."""
    stop_children()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    os._exit(status)


__all__ = [
    "INTERRUPTED",
    "SHUTDOWN_GRACE",
    "Winding",
    "Workers",
    "leave_now",
    "run_to_end",
    "stop_children",
]
