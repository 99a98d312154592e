"""Leaving in bounded time: `run` returns the status (after the usual exit) when nothing is
left running, and exits at once when a thread is blocked for good; `Winding` gives work its
grace and no more."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rho_kernel.shutdown import Winding

#: How long a child process may take at most: only a safety net.
WAIT = 90.0


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def test_a_run_with_nothing_left_exits_as_usual_with_its_status(tmp_path: Path) -> None:
    done = _python(
        """
        import asyncio, atexit, sys
        from pathlib import Path
        from rho_kernel.shutdown import run_to_end as run

        atexit.register(lambda: Path(sys.argv[1], "atexit").write_text("ran"))

        async def main():
            await asyncio.to_thread(sum, [1, 2])
            return 7

        sys.exit(run(main()))
        """,
        tmp_path,
    )
    assert done.returncode == 7, done.stderr
    assert (tmp_path / "atexit").read_text() == "ran"  # a normal exit: its handlers ran


def test_a_thread_blocked_on_a_fifo_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    done = _python(
        """
        import asyncio, sys, threading
        from pathlib import Path
        from rho_kernel.shutdown import run_to_end as run

        fifo = Path(sys.argv[1], "fifo")
        started = threading.Event()

        def block():
            started.set()
            return fifo.read_text()  # no one opens it for writing: blocked for good

        async def main():
            blocked = asyncio.ensure_future(asyncio.to_thread(block))
            await asyncio.to_thread(started.wait)
            blocked.cancel()  # nothing waits for the thread any more
            print("left", flush=True)
            return 5

        sys.exit(run(main(), grace=0.1))
        """,
        tmp_path,
    )
    assert (done.returncode, done.stdout) == (5, "left\n"), done.stderr


def test_a_task_that_refuses_to_stop_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    done = _python(
        """
        import asyncio, sys
        from rho_kernel.shutdown import run_to_end as run

        async def stubborn():
            while True:
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    asyncio.current_task().uncancel()

        async def main():
            asyncio.ensure_future(stubborn())
            await asyncio.sleep(0)
            return 3

        sys.exit(run(main(), grace=0.1))
        """,
        tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert "Task was destroyed" not in done.stderr


def _running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + WAIT
    while _running(pid):
        assert time.monotonic() < deadline, f"process {pid} outlived its parent"
        time.sleep(0.02)


@pytest.mark.parametrize("waited", [True, False])
def test_children_left_running_are_stopped_when_the_run_ends(tmp_path: Path, waited: bool) -> None:
    # A child a thread waits for for good (the thread is stuck), or one nobody waits for.
    done = _python(
        f"""
        import asyncio, subprocess, sys, threading
        from rho_kernel.shutdown import run_to_end as run

        started = threading.Event()

        def start():
            child = subprocess.Popen(["sleep", "3600"], start_new_session={not waited})
            print(child.pid, flush=True)
            started.set()
            if {waited}:
                child.wait()

        async def main():
            asyncio.ensure_future(asyncio.to_thread(start))
            await asyncio.to_thread(started.wait)
            return 4

        sys.exit(run(main(), grace=0.1))
        """,
        tmp_path,
    )
    assert done.returncode == 4, done.stderr
    _wait_gone(int(done.stdout.split()[0]))


def test_an_error_of_the_run_is_raised_when_nothing_is_left(tmp_path: Path) -> None:
    done = _python(
        """
        import sys
        from rho_kernel.shutdown import run_to_end as run

        async def main():
            raise LookupError("broken")

        try:
            run(main())
        except LookupError as exc:
            print("raised", exc)
        """,
        tmp_path,
    )
    assert done.stdout == "raised broken\n", done.stderr


async def test_winding_waits_for_work_that_ends_and_cancels_work_that_does_not() -> None:
    winding = Winding(0.05)
    quick = asyncio.ensure_future(asyncio.sleep(0))
    winding.start()
    assert await winding.settle(quick) is True
    endless = asyncio.ensure_future(asyncio.Event().wait())
    assert await winding.settle(endless) is False
    await asyncio.gather(endless, return_exceptions=True)
    assert endless.cancelled()


async def test_winding_waits_without_bound_until_it_is_started() -> None:
    winding = Winding(0.0)
    release = asyncio.Event()
    work = asyncio.ensure_future(release.wait())
    settling = asyncio.ensure_future(winding.settle(work))
    await asyncio.sleep(0)
    assert not settling.done() and not winding.started
    release.set()
    assert await settling is True


async def test_ending_the_grace_at_once_stops_waiting() -> None:
    winding = Winding(3600.0)
    winding.start()
    winding.end_now()
    endless = asyncio.ensure_future(asyncio.Event().wait())
    assert await asyncio.wait_for(winding.settle(endless), WAIT) is False
