"""A depth-first walk of a project directory through the sandbox, honouring the ignore rules.

Every directory is opened with `SandboxRoot.open_dir`; symlinks are reported but never
followed. Entries come in the order ripgrep's `--sort path` gives: depth first, each
directory's entries sorted by the bytes of their names. A directory that is ignored is not
entered; `.git` is skipped unless asked for (non-recursive listings show it).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from rho_kernel.security import SandboxError, SandboxRoot
from rho_tools_fs.ignore import IgnoreRules

T = TypeVar("T")

Kind = Literal["dir", "file", "symlink", "other"]


@dataclass(frozen=True, slots=True)
class WalkEntry:
    """One entry met by the walk: its root-relative `/`-separated path and its kind."""

    path: str
    kind: Kind

    @property
    def name(self) -> str:
        """The last path component."""
        return self.path.rsplit("/", 1)[-1]


class WalkStopped(Exception):
    """The walk was stopped through its `stop` event."""


def display_path(path: str) -> str:
    """A path as text for the model: undecodable bytes in names become U+FFFD."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def _kind(entry: os.DirEntry[str]) -> Kind:
    if entry.is_symlink():
        return "symlink"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "other"


class TreeWalk:
    """Walk below a directory of `root` with `rules`; `errors` counts unreadable entries.

    `hidden` includes names starting with `.`; `include_git` includes `.git` itself (never
    its content when recursing); `max_depth` 1 lists one level. Setting `stop` makes the walk
    raise `WalkStopped` at the next entry.
    """

    def __init__(
        self,
        root: SandboxRoot,
        rules: IgnoreRules,
        *,
        hidden: bool,
        include_git: bool = False,
        max_depth: int | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.root = root
        self.rules = rules
        self.hidden = hidden
        self.include_git = include_git
        self.max_depth = max_depth
        self.stop = stop
        self.errors = 0

    def _list(self, directory: str) -> list[tuple[str, Kind]]:
        """The sorted (name, kind) pairs of `directory`; a failure counts as one error."""
        try:
            with self.root.open_dir(directory or ".") as handle, handle.scandir() as entries:
                found: list[tuple[str, Kind]] = []
                for entry in entries:
                    try:
                        found.append((entry.name, _kind(entry)))
                    except OSError:
                        self.errors += 1
        except (SandboxError, OSError):
            self.errors += 1
            return []
        self.rules.load_dir(directory, (name for name, _ in found))
        found.sort(key=lambda item: os.fsencode(item[0]))
        return found

    def _keep(self, name: str, path: str, kind: Kind, depth: int) -> bool:
        if name == ".git":
            return self.include_git and depth == 0
        if not self.hidden and name.startswith("."):
            return False
        return not self.rules.ignored(path, kind == "dir")

    def entries(self, scope: str) -> Iterator[WalkEntry]:
        """Every kept entry below the root-relative directory `scope` ("" for the root)."""
        scope = "" if scope in ("", ".") else scope
        self.rules.load_ancestors(scope)
        stack: list[tuple[str, int, Iterator[tuple[str, Kind]]]] = [
            (scope, 0, iter(self._list(scope)))
        ]
        while stack:
            if self.stop is not None and self.stop.is_set():
                raise WalkStopped()
            directory, depth, pending = stack[-1]
            item = next(pending, None)
            if item is None:
                stack.pop()
                continue
            name, kind = item
            path = f"{directory}/{name}" if directory else name
            if not self._keep(name, path, kind, depth):
                continue
            yield WalkEntry(path, kind)
            if kind == "dir" and (self.max_depth is None or depth + 1 < self.max_depth):
                stack.append((path, depth + 1, iter(self._list(path))))


async def run_stoppable(func: Callable[..., T], /, *args: Any) -> T:
    """Run the blocking walk `func(*args, stop)` in a worker thread; when the awaiting task
    is cancelled (an abort), `stop` is set so the walk ends at its next entry."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(func, *args, stop)
    except BaseException:
        stop.set()
        raise


__all__ = ["Kind", "TreeWalk", "WalkEntry", "WalkStopped", "display_path", "run_stoppable"]
