"""Project root detection: walk up from a directory to the first one with a project marker."""

from __future__ import annotations

import os
from pathlib import Path

#: Files or directories whose presence marks a project root, checked in this order.
PROJECT_MARKERS: tuple[str, ...] = (
    ".rho/config.toml",
    ".git",
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "go.mod",
)


def _has_marker(directory: Path) -> bool:
    for marker in PROJECT_MARKERS:
        try:
            if (directory / marker).exists():
                return True
        except OSError:  # e.g. permission denied on an ancestor: treat as absent
            continue
    return False


def find_project_root(start: Path) -> Path:
    """The first canonical directory, from `start` (inclusive) upwards, holding any marker.

    Without a marker anywhere up to the filesystem root, the canonical `start` is returned.
    `.git` may be a directory or a file (worktrees and submodules); both count.
    """
    canonical = Path(os.path.realpath(start))
    for directory in (canonical, *canonical.parents):
        if _has_marker(directory):
            return directory
    return canonical


__all__ = ["PROJECT_MARKERS", "find_project_root"]
