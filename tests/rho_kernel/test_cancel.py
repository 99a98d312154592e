"""Cancellation: abandoned work raises Cancelled; finished work reports what it did."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rho_kernel.cancel import Cancelled, CancelToken, run_to_completion


async def _settle() -> None:
    """Let every ready task and callback run (no timer: nothing here waits for time)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_cancel_interrupts_waiting_work() -> None:
    token = CancelToken()
    asyncio.get_running_loop().call_soon(token.cancel)  # runs once the work waits
    with pytest.raises(Cancelled):
        await token.run(asyncio.sleep(30))


async def test_work_that_finishes_despite_the_cancel_returns_its_result() -> None:
    token = CancelToken()
    started = threading.Event()
    release = threading.Event()
    done: list[str] = []

    def write() -> str:
        started.set()
        release.wait(60)
        done.append("written")
        return "wrote it"

    task = asyncio.ensure_future(token.run(run_to_completion(write)))
    await asyncio.to_thread(started.wait, 60)
    token.cancel()
    await _settle()
    assert not task.done()  # the write is still running: not reported as cancelled
    release.set()
    assert await task == "wrote it"
    assert done == ["written"]


async def test_run_to_completion_passes_on_the_worker_exception() -> None:
    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        await run_to_completion(fail)


async def test_a_task_cancelled_twice_still_waits_for_the_worker() -> None:
    started, release = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        release.wait(60)
        return 7

    task = asyncio.ensure_future(run_to_completion(slow))
    await asyncio.to_thread(started.wait, 60)
    task.cancel()
    await _settle()
    task.cancel()
    await _settle()
    assert not task.done()
    release.set()
    assert await task == 7


async def test_work_that_fails_once_stopped_is_reported_as_cancelled() -> None:
    token = CancelToken()

    async def cleanup_fails() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise RuntimeError("half-done") from None

    asyncio.get_running_loop().call_soon(token.cancel)
    with pytest.raises(Cancelled):
        await token.run(cleanup_fails())


async def test_a_failure_of_its_own_is_passed_on() -> None:
    token = CancelToken()

    async def fails() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        await token.run(fails())
    token.cancel()
    with pytest.raises(Cancelled):  # once cancelled, no new work starts
        await token.run(fails())


async def test_one_cancel_stops_every_running_work() -> None:
    token = CancelToken()
    runs = [asyncio.ensure_future(token.run(asyncio.sleep(30))) for _ in range(3)]
    await _settle()
    token.cancel()
    token.cancel()  # idempotent
    outcomes = await asyncio.gather(*runs, return_exceptions=True)
    assert [type(outcome) for outcome in outcomes] == [Cancelled] * 3


async def test_cancelling_the_caller_is_not_mistaken_for_the_token() -> None:
    token = CancelToken()
    stopped: list[str] = []

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.append("work")
            raise

    caller = asyncio.ensure_future(token.run(work()))
    await _settle()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert stopped == ["work"]  # the work is stopped with its caller
    assert not token.cancelled
