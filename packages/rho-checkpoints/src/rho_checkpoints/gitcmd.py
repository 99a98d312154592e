"""Running `git` against a checkpoint store: the store's own object database and index, the
project as the work tree.

Every run sets `GIT_DIR` to the store, `GIT_WORK_TREE` to the project and `GIT_INDEX_FILE`
to the store's own index, so the project's `.git` (its history, index, stash and config) is
never read or written.

Every git rho runs for itself — `git --version` as much as a snapshot — runs with a neutral
configuration and a bounded time: no `GIT_*` variable of rho's environment reaches it, system
and global configuration and attributes are off (`GIT_CONFIG_NOSYSTEM`, `GIT_ATTR_NOSYSTEM`,
`GIT_CONFIG_GLOBAL=/dev/null`), and `HOME` and `XDG_CONFIG_HOME` point at `/dev/null`, so no
file of the user's (`~/.gitconfig`, `~/.config/git/config`, `…/attributes`, `…/ignore`) is
opened: one that is a FIFO would hold git forever. Each runs in a process group of its own,
killed whole once it runs past its time (`GIT_TIMEOUT`): nothing git started outlives it.

Security: a cloned repository's `.gitattributes` may name a `filter`, a `diff` driver or a
`merge` driver, but each is defined only in configuration, and the only configuration git
reads here is the store's own, which defines none; hooks are off (`core.hooksPath=/dev/null`)
and so is the file-system monitor (`core.fsmonitor=false`), so git runs no program of the
project's. Keep it that way: never read the project's `.git/config` and never write a
driver into the store's config. The store's `info/attributes` also switches off git's
built-in content conversions (line endings, `ident`, working-tree encodings), so a snapshot
holds, and a restore writes, the files' bytes as they are. A git that waits to open a FIFO
of the project (a `.gitignore` made with `mkfifo`) reads it as empty (`rho_checkpoints.fifos`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rho_checkpoints.fifos import release_fifo
from rho_kernel import diagnostics

#: The settings every run passes before the subcommand (`-c NAME=VALUE`).
CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.untrackedCache=true",
    "core.excludesFile=/dev/null",
    "core.attributesFile=/dev/null",
    "gc.auto=0",
    "core.quotePath=false",
    "advice.addEmbeddedRepo=false",
)


class CheckpointError(Exception):
    """A checkpoint operation failed: git failed (the message names the subcommand and
    carries git's error, on one line) or a path was refused."""


#: The longest one git command may run, in seconds (then it is killed).
GIT_TIMEOUT = 60.0
#: How long git runs before rho looks whether it waits to open a FIFO, and then how often.
FIFO_CHECK_AFTER = 0.05
#: How long a killed git is waited for (a process stuck in the kernel may outlive SIGKILL).
KILL_WAIT = 5.0


class GitTimeout(CheckpointError):
    """A git command ran past its time and was killed."""


def git_available(timeout: float = GIT_TIMEOUT) -> str | None:
    """None when `git --version` runs; otherwise a one-line message saying that checkpoints
    are off and why. `git` is looked up on the current `PATH`, and runs as every git of
    rho's does: neutral configuration, at most `timeout` seconds."""
    try:
        code, _, stderr = run_bounded(
            ["git", "--version"], env=neutral_environment(os.environ), timeout=timeout
        )
    except FileNotFoundError:
        return "checkpoints are off: git is not installed (no `git` on PATH)"
    except OSError as error:
        return f"checkpoints are off: git is not installed ({_one_line(str(error))})"
    except GitTimeout:
        return f"checkpoints are off: `git --version` did not finish within {timeout:.0f} s"
    if code != 0:
        message = _one_line(stderr.decode("utf-8", "replace"))
        return f"checkpoints are off: `git --version` failed (exit status {code}: {message})"
    return None


def run_bounded(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    input: bytes | None = None,
    timeout: float = GIT_TIMEOUT,
    while_waiting: Callable[[int], bool] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run `command` in a process group of its own with `input` on stdin; its exit code,
    stdout and stderr. While it runs, `while_waiting(pid)` is called every
    `FIFO_CHECK_AFTER` seconds (True: it freed a waiting git, which then runs on). Past
    `timeout` seconds the whole group is killed and `GitTimeout` raised.
    `OSError` when the command cannot start."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                stdout, stderr = process.communicate(input, timeout=FIFO_CHECK_AFTER)
                return process.returncode, stdout, stderr
            except subprocess.TimeoutExpired:
                input = None  # already sent: a retry must not send it again
            if while_waiting is not None and while_waiting(process.pid):
                continue
            if time.monotonic() > deadline:
                raise GitTimeout(f"did not finish within {timeout:.0f} s")
    except BaseException:
        _kill_group(process)
        raise


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started (its own process group), and reap it
    without waiting long."""
    with contextlib.suppress(OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # no process groups to kill (Windows)
            process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
        process.communicate(timeout=KILL_WAIT)


class GitRunner:
    """Runs `git` for the store at `store_dir` with `work_tree` as its work tree."""

    def __init__(self, store_dir: Path, work_tree: Path) -> None:
        """Prepare the environment every run uses; nothing runs yet."""
        self.store_dir = store_dir
        self.work_tree = work_tree
        self._env = store_environment(store_dir, work_tree, os.environ)
        #: The longest one command may run, in seconds.
        self.timeout = GIT_TIMEOUT
        #: The FIFOs git was found waiting to open (each said once on stderr).
        self.fifos: set[Path] = set()

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        check: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> bytes:
        """Run `git ARGS` in the work tree with `input` on stdin and return its stdout.

        With `check` (the default) an exit code other than 0 raises `CheckpointError`;
        `env` adds variables for this run only (an author date, say).
        """
        command = ["git"]
        for setting in CONFIG:
            command += ["-c", setting]
        command += args
        environment = self._env if env is None else {**self._env, **env}
        try:
            code, stdout, stderr = run_bounded(
                command,
                env=environment,
                cwd=self.work_tree,
                input=input,
                timeout=self.timeout,
                while_waiting=self._release_fifo,
            )
        except GitTimeout:
            raise GitTimeout(
                f"git {_subcommand(args)} did not finish within {self.timeout:.0f} s "
                "(a file it reads may be on a hung mount)"
            ) from None
        except OSError as error:
            raise CheckpointError(f"git {_subcommand(args)} failed: {error}") from error
        if check and code != 0:
            message = _one_line(stderr.decode("utf-8", "replace"))
            raise CheckpointError(f"git {_subcommand(args)} failed: {message}")
        return stdout

    def _release_fifo(self, pid: int) -> bool:
        """Give a git waiting to open a FIFO of the project an end of file
        (`rho_checkpoints.fifos`); whether it did."""
        released = release_fifo(pid, self.work_tree)
        if released is None:
            return False
        self._say_fifo(released)
        return True

    def _say_fifo(self, path: Path) -> None:
        if path not in self.fifos:
            self.fifos.add(path)
            diagnostics.warn(f"checkpoints: {path} is a FIFO, read as an empty file")


def neutral_environment(inherited: Mapping[str, str]) -> dict[str, str]:
    """`inherited` without any `GIT_*` variable, with system and global configuration and
    attributes off and `HOME` and `XDG_CONFIG_HOME` at `/dev/null` (git finds none of the
    user's files there, and a path below a file cannot be opened: no FIFO waits)."""
    env = {name: value for name, value in inherited.items() if not name.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        HOME="/dev/null",
        XDG_CONFIG_HOME="/dev/null",
    )
    return env


def store_environment(
    store_dir: Path, work_tree: Path, inherited: Mapping[str, str]
) -> dict[str, str]:
    """The neutral environment (`neutral_environment`) plus the variables that point git at
    the store, its index and the work tree."""
    env = neutral_environment(inherited)
    env.update(
        GIT_DIR=str(store_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_INDEX_FILE=str(store_dir / "index"),
        GIT_OPTIONAL_LOCKS="0",
    )
    return env


def _subcommand(args: Sequence[str]) -> str:
    return next((arg for arg in args if not arg.startswith("-")), "")


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "no message"
