"""Keeping tools out of rho's own state directory (`~/.rho`), whatever the project root.

`~/.rho` holds the user's config, the trust store, the sandbox grants and every project's
sessions: a tool that could read it would show other projects' conversations to the model,
and one that could write it would loosen rho's own settings. It is told apart by identity
(`st_dev`, `st_ino`), not by name, so a symbolic link, a bind mount or a `..` that leads into
it is recognised as well. Its direct subdirectories (`sessions`, `extensions`, …) are
recognised the same way, so a bind mount of one of them is refused too.

The identities are taken again whenever the directory changes (its inode or mtime), so a
state directory created while rho runs, or replaced, is fenced from then on.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

Identity = tuple[int, int]


class StateFence:
    """The identities of rho's state directory `path` and of its direct subdirectories."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._key: tuple[int, int, int] | None = None
        self._identities: frozenset[Identity] = frozenset()

    def __repr__(self) -> str:
        return f"StateFence({str(self.path)!r})"

    def identities(self) -> frozenset[Identity]:
        """The directories refused now (empty while the state directory does not exist)."""
        try:
            info = os.stat(self.path)
        except OSError:
            return frozenset()
        if not stat.S_ISDIR(info.st_mode):
            return frozenset()
        key = (info.st_dev, info.st_ino, info.st_mtime_ns)
        with self._lock:
            if key != self._key:
                self._identities = frozenset({(info.st_dev, info.st_ino), *self._children()})
                self._key = key
            return self._identities

    def _children(self) -> list[Identity]:
        found: list[Identity] = []
        try:
            with os.scandir(self.path) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            info = entry.stat(follow_symlinks=False)
                            found.append((info.st_dev, info.st_ino))
                    except OSError:
                        continue
        except OSError:
            pass
        return found

    def encloses(self, directory: Path) -> bool:
        """Whether the existing `directory` is the state directory or lies inside it (its
        canonical path, or any ancestor of it, is one of the fenced directories)."""
        fenced = self.identities()
        if not fenced:
            return False
        canonical = Path(os.path.realpath(directory))
        for candidate in (canonical, *canonical.parents):
            try:
                info = os.stat(candidate)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in fenced:
                return True
        return False


def state_dir_message(shown: str, state: Path) -> str:
    """Why a tool may not use `shown`, which is in rho's state directory `state`."""
    return (
        f"'{shown}' is in rho's own state directory ({state}), which holds rho's settings "
        "and every project's sessions; no tool reads or writes there"
    )


__all__ = ["Identity", "StateFence", "state_dir_message"]
