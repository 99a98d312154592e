"""Project root detection: walk up from a directory to the first one with a project marker.

The walk never picks the user's home directory or a directory containing it: `~/.rho` holds
the user's own config (which is also a project marker) and every project's sessions, and the
home directory holds credentials, so it must never become a sandbox by accident.
"""

from __future__ import annotations

import os
from pathlib import Path

from rho_kernel.home import user_home

#: Files or directories whose presence marks a project root, checked in this order.
PROJECT_MARKERS: tuple[str, ...] = (
    ".rho/config.toml",
    ".git",
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "go.mod",
)


class ProjectRootError(Exception):
    """The start directory is the home directory or contains it, so it cannot be the root.

    `start` and `home` are the canonical directories involved.
    """

    def __init__(self, start: Path, home: Path) -> None:
        self.start = start
        self.home = home
        what = (
            "is your home directory" if start == home else f"contains your home directory ({home})"
        )
        super().__init__(
            f"{start} {what}; rho does not make it the project root on its own, because "
            "the sandbox would then cover your credentials and every project's sessions: "
            "start rho in a project directory, or pass --root to choose the root yourself"
        )


def _has_marker(directory: Path) -> bool:
    for marker in PROJECT_MARKERS:
        try:
            if (directory / marker).exists():
                return True
        except OSError:  # e.g. permission denied on an ancestor: treat as absent
            continue
    return False


def find_project_root(start: Path, *, home: Path | None = None) -> Path:
    """The first canonical directory, from `start` (inclusive) upwards, holding any marker.

    The walk stops below the home directory (`home`, else `$HOME`/`$USERPROFILE`, see
    `user_home`): neither it nor any directory containing it is ever picked, so the user's
    own `~/.rho/config.toml` does not make the home directory a project. Without a marker the
    canonical `start` is returned. Raises `ProjectRootError` when `start` is the home
    directory or contains it. `.git` may be a directory or a file (worktrees, submodules).
    """
    canonical = Path(os.path.realpath(start))
    home_dir = Path(os.path.realpath(user_home(home)))
    if home_dir.is_relative_to(canonical):
        raise ProjectRootError(canonical, home_dir)
    for directory in (canonical, *canonical.parents):
        if home_dir.is_relative_to(directory):
            break  # the home directory or above: this and every parent are off limits
        if _has_marker(directory):
            return directory
    return canonical


__all__ = ["PROJECT_MARKERS", "ProjectRootError", "find_project_root"]
