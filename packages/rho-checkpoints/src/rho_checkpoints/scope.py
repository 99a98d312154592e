"""Which paths a restore may write or delete: inside the project root, outside `.git` and
`.rho`, and not reached through a symbolic link that leads out of the root."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from rho_checkpoints.gitcmd import CheckpointError

#: Directory names that are never part of a snapshot, at any depth.
PRIVATE_NAMES = frozenset({".git", ".rho"})


def checked_path(root: Path, path: str) -> str:
    """`path` (relative to `root`, or absolute inside it) as a `/`-separated path relative to
    the canonical `root`; raises `CheckpointError` for a path outside the root, one naming
    `.git` or `.rho`, or one that a symbolic link leads outside the root."""
    given = Path(path)
    absolute = given if given.is_absolute() else root / given
    normal = Path(os.path.normpath(absolute))
    if normal != root and root not in normal.parents:
        raise CheckpointError(f"refused to restore {path!r}: it is outside the project")
    relative = PurePosixPath(normal.relative_to(root).as_posix())
    if PRIVATE_NAMES.intersection(relative.parts):
        raise CheckpointError(f"refused to restore {path!r}: it is inside .git or .rho")
    resolved = normal.resolve()
    if resolved != root and root not in resolved.parents:
        raise CheckpointError(f"refused to restore {path!r}: a symbolic link leads outside")
    return relative.as_posix()
