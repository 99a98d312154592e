"""Running `git` against a checkpoint store: the store's own object database and index, the
project as the work tree.

Every run sets `GIT_DIR` to the store, `GIT_WORK_TREE` to the project and `GIT_INDEX_FILE`
to the store's own index, so the project's `.git` (its history, index, stash and config) is
never read or written. No `GIT_*` variable of rho's environment reaches git, and system and
global configuration are off (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`).

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

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
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
    "gc.auto=0",
    "core.quotePath=false",
    "advice.addEmbeddedRepo=false",
)


class CheckpointError(Exception):
    """A checkpoint operation failed: git failed (the message names the subcommand and
    carries git's error, on one line) or a path was refused."""


def git_available() -> str | None:
    """None when `git --version` runs; otherwise a one-line message saying that checkpoints
    are off and why. `git` is looked up on the current `PATH`."""
    try:
        subprocess.run(["git", "--version"], capture_output=True, check=True)
    except FileNotFoundError:
        return "checkpoints are off: git is not installed (no `git` on PATH)"
    except (OSError, subprocess.CalledProcessError) as error:
        return f"checkpoints are off: git is not installed ({_one_line(str(error))})"
    return None


#: The longest one git command may run, in seconds (then it is killed).
GIT_TIMEOUT = 60.0
#: How long git runs before rho looks whether it waits to open a FIFO, and then how often.
FIFO_CHECK_AFTER = 0.05


class GitRunner:
    """Runs `git` for the store at `store_dir` with `work_tree` as its work tree."""

    def __init__(self, store_dir: Path, work_tree: Path) -> None:
        """Prepare the environment every run uses; nothing runs yet."""
        self.store_dir = store_dir
        self.work_tree = work_tree
        self._env = store_environment(store_dir, work_tree, os.environ)
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
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.work_tree,
                env=environment,
            )
        except OSError as error:
            raise CheckpointError(f"git {_subcommand(args)} failed: {error}") from error
        stdout, stderr = self._wait(process, args, input)
        if check and process.returncode != 0:
            message = _one_line(stderr.decode("utf-8", "replace"))
            raise CheckpointError(f"git {_subcommand(args)} failed: {message}")
        return stdout

    def _wait(
        self, process: subprocess.Popen[bytes], args: Sequence[str], input: bytes | None
    ) -> tuple[bytes, bytes]:
        """Its output once git exits; a git waiting to open a FIFO of the project is given
        an end of file (`rho_checkpoints.fifos`), one that runs past `GIT_TIMEOUT` killed."""
        deadline = time.monotonic() + GIT_TIMEOUT
        with process:
            while True:
                try:
                    return process.communicate(input, timeout=FIFO_CHECK_AFTER)
                except subprocess.TimeoutExpired:
                    input = None  # already sent: a retry must not send it again
                released = release_fifo(process.pid, self.work_tree)
                if released is not None:
                    self._say_fifo(released)
                elif time.monotonic() > deadline:
                    process.kill()
                    process.communicate()
                    raise CheckpointError(
                        f"git {_subcommand(args)} did not finish within {GIT_TIMEOUT:.0f} s "
                        "(a file it reads may be on a hung mount)"
                    ) from None

    def _say_fifo(self, path: Path) -> None:
        if path not in self.fifos:
            self.fifos.add(path)
            diagnostics.warn(f"checkpoints: {path} is a FIFO, read as an empty file")


def store_environment(
    store_dir: Path, work_tree: Path, inherited: Mapping[str, str]
) -> dict[str, str]:
    """`inherited` without any `GIT_*` variable, plus the variables that point git at the
    store and switch off system and global configuration."""
    env = {name: value for name, value in inherited.items() if not name.startswith("GIT_")}
    env.update(
        GIT_DIR=str(store_dir),
        GIT_WORK_TREE=str(work_tree),
        GIT_INDEX_FILE=str(store_dir / "index"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
    )
    return env


def _subcommand(args: Sequence[str]) -> str:
    return next((arg for arg in args if not arg.startswith("-")), "")


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "no message"
