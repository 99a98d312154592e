"""Which paths a restore may be asked for: inside the project root, outside `.git` and
`.rho`, and not reached through a symbolic link or a file that stands where a folder was.

A path is taken as written, never normalised through a link: `..` is refused (the kernel
would resolve `src/up/..` through the link `src/up`, not as text), and so is a path whose
way passes a link (which one is meant: the link's target, or what was there before the
link?). The path's own last name may be a link: a restore acts on the link itself (deletes
or replaces it), never on what it points to.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from rho_checkpoints.gitcmd import CheckpointError

#: Directory names that are never part of a snapshot, at any depth.
PRIVATE_NAMES = frozenset({".git", ".rho"})


def relative_path(root: Path, path: str) -> str:
    """`path` (relative to `root`, or absolute inside it) as a `/`-separated path relative to
    the canonical `root` ("." for the root itself); raises `CheckpointError` for an empty
    path, one with `..`, one outside the root, or one naming `.git` or `.rho`. Nothing on
    the disk is looked at."""
    if not path:
        raise CheckpointError("'' is no path")
    given = PurePosixPath(path.replace(os.sep, "/"))
    if ".." in given.parts:
        raise CheckpointError(f"{path!r} has '..' in it: name the path inside the project")
    if given.is_absolute():
        if given != PurePosixPath(root) and PurePosixPath(root) not in given.parents:
            raise CheckpointError(f"{path!r} is outside the project ({root})")
        given = given.relative_to(PurePosixPath(root))
    relative = PurePosixPath(*given.parts) if given.parts else PurePosixPath(".")
    if PRIVATE_NAMES.intersection(relative.parts):
        raise CheckpointError(f"{path!r} is inside .git or .rho, which rho never restores")
    return relative.as_posix()


def request_path(root: Path, path: str) -> str:
    """`path` as `relative_path` gives it, once the folders on its way are checked on the
    disk: each must be a folder (or missing). Raises `CheckpointError` saying which is a
    link or a file now, and what to ask for instead."""
    relative = relative_path(root, path)
    parts = PurePosixPath(relative).parts[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        try:
            mode = os.lstat(root / folder).st_mode
        except FileNotFoundError:
            break
        except OSError as exc:
            raise CheckpointError(f"{path!r} cannot be reached: {exc.strerror}") from None
        if stat.S_ISDIR(mode):
            continue
        what = "a symbolic link" if stat.S_ISLNK(mode) else "not a folder"
        raise CheckpointError(
            f"{path!r} lies beyond {folder}, which is {what} now: a restore does not go "
            f"through it; ask for {folder!r} to restore it as it was, with what was in it"
        )
    return relative


__all__ = ["PRIVATE_NAMES", "relative_path", "request_path"]
