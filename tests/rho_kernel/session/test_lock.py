"""One writer per session file: the sidecar lock, its pid, and what happens to stale locks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import Session, SessionError
from rho_kernel.session.lock import SessionLock, SessionLocked, lock_path_for

HOLDER = """
import sys
from pathlib import Path
from rho_kernel.session.lock import SessionLock
lock = SessionLock.acquire(Path(sys.argv[1]))
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def session_path(project: Path, home: Path) -> Path:
    with Session.create(project, home=home) as session:
        session.append_message(ChatMessage.user("hi"))
        assert session.path is not None
        return session.path


@pytest.fixture
def holder(session_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the session's lock."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(session_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "locked\n"
    yield process
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


def test_lock_records_the_pid_and_release_removes_it(session_path: Path) -> None:
    lock = SessionLock.acquire(session_path)
    lock_file = lock_path_for(session_path)
    assert lock_file.name == session_path.name + ".lock"
    assert lock_file.read_text() == f"{os.getpid()}\n"
    lock.release()
    lock.release()
    assert not lock.held and not lock_file.exists()


def test_an_open_session_holds_its_lock_until_closed(session_path: Path) -> None:
    with Session.open(session_path):
        with pytest.raises(SessionLocked) as locked:
            Session.open(session_path)
        assert locked.value.pid == os.getpid()
        assert str(session_path) in str(locked.value)
        assert f"pid {os.getpid()}" in str(locked.value)
    with Session.open(session_path) as again:
        again.append_message(ChatMessage.user("once more"))


def test_another_process_holding_the_lock_is_named(
    session_path: Path, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(SessionLocked, match=rf"pid {holder.pid}\b") as locked:
        Session.open(session_path)
    assert locked.value.pid == holder.pid
    assert "-c or --session" in str(locked.value)


def test_a_lock_left_by_a_killed_process_blocks_nobody(
    session_path: Path, holder: subprocess.Popen[str]
) -> None:
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=10)
    lock_file = lock_path_for(session_path)
    assert lock_file.read_text() == f"{holder.pid}\n"  # the stale file is still there
    with Session.open(session_path) as session:
        assert lock_file.read_text() == f"{os.getpid()}\n"
        session.append_message(ChatMessage.user("after the crash"))


def test_a_file_that_is_not_a_lock_file_is_left_alone(session_path: Path) -> None:
    lock_file = lock_path_for(session_path)
    lock_file.write_text("[[package]]\nname = 'precious'\n")
    with pytest.raises(SessionError, match="not a rho lock file"):
        Session.open(session_path)
    assert lock_file.read_text() == "[[package]]\nname = 'precious'\n"


def test_a_symlinked_lock_file_is_not_followed(session_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("")
    lock_path_for(session_path).symlink_to(target)
    with pytest.raises(SessionError, match="cannot lock"):
        Session.open(session_path)
    assert target.read_text() == ""


def test_a_file_that_is_not_a_session_is_refused_before_locking(tmp_path: Path) -> None:
    other = tmp_path / "Cargo"
    other.write_text("not a session\n")
    lock_file = lock_path_for(other)
    lock_file.write_text("")
    with pytest.raises(SessionError, match="header"):
        Session.open(other)
    assert lock_file.exists() and lock_file.read_text() == ""


def test_a_dropped_session_does_not_keep_its_lock(session_path: Path) -> None:
    Session.open(session_path)  # never closed: garbage at once
    with Session.open(session_path):
        pass
