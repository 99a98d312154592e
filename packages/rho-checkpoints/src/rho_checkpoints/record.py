"""Recording the work tree in the store's index and writing it as a tree.

Design: one `git ls-files --others --modified --exclude-standard` lists the only paths whose
entry in the store's index can change (untracked files that are not ignored, and tracked ones
whose stat data differs, deleted ones included); git answers it from the index's stat cache
and its untracked cache, without hashing a file. When it lists nothing the index already is
the work tree and `git add` is skipped. Otherwise only the listed paths are looked at: those
over the size limit are taken out of the index (they may have been small before) and kept
out of `git add -A` by `:(exclude)` pathspecs, so a large file is never read or hashed, and
an untracked nested repository (listed as `dir/`) is kept out the same way, so neither it
nor its files are recorded. When a `.gitignore` is among them, files that it now ignores
are taken out of the index too. `git write-tree` then reuses the index's cached trees.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from rho_checkpoints.gitcmd import GitRunner


def record_tree(git: GitRunner, max_file_bytes: int) -> str:
    """Bring the store's index up to date with the work tree and return its tree id.

    Ignored files, `.git` and `.rho` (at any depth), untracked nested repositories and files
    over `max_file_bytes` are left out."""
    listed = git.run(["ls-files", "-z", "--others", "--modified", "--exclude-standard"])
    candidates = sorted({os.fsdecode(path) for path in listed.split(b"\0") if path})
    if candidates:
        large = [path for path in candidates if _over(git.work_tree / path, max_file_bytes)]
        nested = [path for path in candidates if path.endswith("/")]
        if large:
            _remove_from_index(git, large)
        specs = ["."] + [f":(exclude,literal){path}" for path in large + nested]
        git.run(["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], input=_nul(specs))
        if any(path == ".gitignore" or path.endswith("/.gitignore") for path in candidates):
            _remove_ignored(git)
    return git.run(["write-tree"]).decode().strip()


def _over(path: Path, limit: int) -> bool:
    try:
        status = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size > limit


def _remove_ignored(git: GitRunner) -> None:
    ignored = git.run(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"])
    paths = [os.fsdecode(path) for path in ignored.split(b"\0") if path]
    if paths:
        _remove_from_index(git, paths)


def _remove_from_index(git: GitRunner, paths: Iterable[str]) -> None:
    git.run(["update-index", "-z", "--force-remove", "--stdin"], input=_nul(paths))


def _nul(items: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(item) + b"\0" for item in items)
