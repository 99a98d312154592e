"""ripgrep's results as candidates, confirmed through the sandbox before they are shown.

ripgrep walks and opens files by path, so a directory swapped for a symlink to somewhere
outside the project between its `readdir` and its `open` would lead it there (not following
links does not cover the components above the last one). Nothing it reports is shown as is:

- a path `find_files` lists must be a regular file in a directory reached through the
  sandbox's directory fds (`EntryCheck`), right after ripgrep named it;
- the lines `search_files` shows are read by ripgrep from files rho opened itself through
  the sandbox (`open_candidates`) and hands over as inherited descriptors (`/dev/fd/N`).
  Where there is no `/dev/fd` (Windows), the file's canonical path as the sandbox checked
  it is given instead, which is the guarantee the sandbox has there.

A swap at any moment can thus drop a result, never show a name or a line from outside.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from io import BufferedReader

from rho_kernel.security import SandboxError, SandboxRoot


class EntryCheck:
    """Whether a root-relative path is, right now, a regular file inside the sandbox.

    Each directory is opened through the sandbox and read once (the regular files among its
    entries), so a sorted listing costs one `scandir` per directory, as ripgrep's own walk.
    """

    def __init__(self, root: SandboxRoot) -> None:
        self.root = root
        self._parent: str | None = None
        self._files: frozenset[str] = frozenset()

    def is_file(self, path: str) -> bool:
        """`path` (as ripgrep printed it, `/`-separated) names a regular file inside the root."""
        parent, _, name = path.removeprefix("./").rpartition("/")
        if parent != self._parent:
            self._parent = parent
            self._files = self._regular_files(parent or ".")
        return name in self._files

    def _regular_files(self, directory: str) -> frozenset[str]:
        try:
            with self.root.open_dir(directory) as handle, handle.scandir() as entries:
                return frozenset(
                    entry.name for entry in entries if entry.is_file(follow_symlinks=False)
                )
        except (SandboxError, OSError):
            return frozenset()


@functools.cache
def _fd_paths() -> bool:
    """Whether a child can open an inherited descriptor N as `/dev/fd/N`."""
    if os.name != "posix" or not os.path.isdir("/dev/fd"):
        return False
    return not os.path.islink("/dev/fd") or os.path.isdir("/proc/self/fd")


@dataclass(slots=True)
class OpenedFiles:
    """Files opened through the sandbox for one ripgrep run; close them after the run.

    `arguments` maps the command-line argument naming each file to its candidate path;
    `fds` are the descriptors the child must inherit.
    """

    arguments: dict[str, str] = field(default_factory=dict)
    fds: tuple[int, ...] = ()
    _handles: list[BufferedReader] = field(default_factory=list)

    def close(self) -> None:
        """Close every file (idempotent)."""
        for handle in self._handles:
            handle.close()
        self._handles.clear()


def open_candidates(root: SandboxRoot, paths: list[str], max_bytes: int) -> OpenedFiles:
    """Open each of `paths` through the sandbox; those that are not (now) regular files of
    at most `max_bytes` inside the root are left out."""
    opened = OpenedFiles()
    fds: list[int] = []
    by_fd = _fd_paths()
    try:
        for path in paths:
            try:
                handle = root.open_read(path)
            except (SandboxError, OSError):
                continue
            opened._handles.append(handle)
            fd = handle.fileno()
            if os.fstat(fd).st_size > max_bytes:
                continue
            fds.append(fd)
            opened.arguments[f"/dev/fd/{fd}" if by_fd else handle.name] = path
    except BaseException:
        opened.close()
        raise
    opened.fds = tuple(fds) if by_fd else ()
    return opened


__all__ = ["EntryCheck", "OpenedFiles", "open_candidates"]
