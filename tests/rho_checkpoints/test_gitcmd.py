"""Every git rho runs for its checkpoints: none of the user's git files is read (FIFOs there
would hold git forever), and one that runs past its time is killed with all it started.

A FIFO with no writer blocks whoever opens it: every FIFO a test makes is given an end of
file and removed as the test ends, and what could block runs on a thread joined with a
generous bound, so no test can hang."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fifo_traps import freed_fifos, nobody_waits  # type: ignore[import-not-found]

from rho_checkpoints import CheckpointStore, git_available
from rho_checkpoints.gitcmd import GitTimeout, neutral_environment

#: The longest a test waits for what it runs on a thread (a safety net only).
BOUND = 60.0


@pytest.fixture
def fifos() -> Iterator[list[Path]]:
    """The FIFOs a test makes, freed and removed as it ends."""
    yield from freed_fifos()


def _fifo(path: Path, made: list[Path]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    made.append(path)
    return path


def _bounded(work: object) -> object:
    """`work()` run on a thread; fails the test (instead of hanging it) past `BOUND`."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)  # type: ignore[operator]
    thread.start()
    thread.join(BOUND)
    assert not thread.is_alive(), "still running: something waits on a FIFO"
    return result[0]


def test_the_environment_points_git_at_no_file_of_the_users() -> None:
    env = neutral_environment(
        {"HOME": "/home/u", "XDG_CONFIG_HOME": "/x", "GIT_CONFIG": "/evil", "PATH": "/bin"}
    )
    assert env["GIT_CONFIG_GLOBAL"] == "/dev/null" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_ATTR_NOSYSTEM"] == "1"
    assert env["HOME"] == "/dev/null" and env["XDG_CONFIG_HOME"] == "/dev/null"
    assert "GIT_CONFIG" not in env and env["PATH"] == "/bin"


def test_fifos_among_the_users_git_files_hold_no_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fifos: list[Path]
) -> None:
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    _fifo(home / ".gitconfig", fifos)
    for folder in (home / ".config" / "git", xdg / "git"):
        for name in ("config", "attributes", "ignore"):
            _fifo(folder / name, fifos)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")

    assert _bounded(git_available) is None

    def snapshot_edit_restore() -> str:
        store = CheckpointStore.open(root, tmp_path / "state")
        first = store.snapshot("first")
        (root / "a.txt").write_text("two\n")
        store.restore(first)
        return (root / "a.txt").read_text()

    assert _bounded(snapshot_edit_restore) == "one\n"
    assert all(nobody_waits(fifo) for fifo in fifos)


def _fake_git(folder: Path, fifo: Path) -> None:
    """A `git` that starts a child which waits on `fifo` forever (holding git's output
    pipes), and waits for it."""
    folder.mkdir()
    script = folder / "git"
    cat = shutil.which("cat")
    assert cat is not None
    script.write_text(f"#!/bin/sh\n{cat} '{fifo}' &\nwait\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_a_git_version_past_its_time_is_killed_with_its_children_and_turns_checkpoints_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fifos: list[Path]
) -> None:
    fifo = _fifo(tmp_path / "never-written", fifos)
    _fake_git(tmp_path / "bin", fifo)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))

    message = _bounded(lambda: git_available(timeout=1))

    assert message == "checkpoints are off: `git --version` did not finish within 1 s"
    assert nobody_waits(fifo)  # the child was killed with git: nothing reads the FIFO


def test_a_snapshot_git_past_its_time_is_killed_and_says_which_and_why(
    tmp_path: Path, fifos: list[Path]
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    store = CheckpointStore.open(root, tmp_path / "state")
    store.git.timeout = 1
    attributes = store.git.store_dir / "info" / "attributes"
    attributes.unlink()
    _fifo(attributes, fifos)  # outside the project: no end of file is given to git

    def snapshot() -> str:
        try:
            return store.snapshot("hung")
        except GitTimeout as exc:
            return str(exc)

    said = _bounded(snapshot)

    assert isinstance(said, str) and "did not finish within 1 s" in said
    assert said.startswith("git ") and "hung mount" in said
    assert nobody_waits(attributes)
