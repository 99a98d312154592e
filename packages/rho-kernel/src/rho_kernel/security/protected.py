"""Directories rho never writes into: `.git` (hooks and config run as code) and `.rho`.

The rule applies at any depth (nested repositories and submodules have their own `.git`) and
to a `.git` *file* (a worktree pointer) as well. Names are compared the way the file systems
rho runs on may compare them, so that `.GIT`, `.git.` or `.g\\u200cit` cannot slip past on a
case-insensitive (macOS, Windows) or normalising (HFS+, NTFS) file system: case is folded,
the code points HFS+ ignores are dropped, trailing dots and spaces and an NTFS stream suffix
(`:stream`) are removed, and the NTFS short name `git~1` counts as `.git`.
"""

from __future__ import annotations

import re

#: The names no write may pass through, lower case.
PROTECTED_NAMES: frozenset[str] = frozenset({".git", ".rho"})

#: Why each protected name is protected, for error messages.
PROTECTED_REASONS: dict[str, str] = {
    ".git": "git hooks and config would run as code",
    ".rho": "it holds rho's own configuration",
}

# Code points HFS+ ignores when comparing names (the list git itself checks).
_HFS_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_SHORT_NAMES = {"git~1": ".git"}


def protected_name(name: str) -> str | None:
    """The protected name (`.git` or `.rho`) that `name` stands for, or None."""
    folded = _HFS_IGNORED.sub("", name).split(":", 1)[0].rstrip(". ").casefold()
    if folded in PROTECTED_NAMES:
        return folded
    return _SHORT_NAMES.get(folded)


def protected_message(
    shown_path: str, protected: str, *, itself: bool, place: str | None = None
) -> str:
    """The refusal for a write to `shown_path`, which is `protected` or lies inside it
    (`place`: a git directory not named `.git`, which the path lies inside)."""
    if place is not None:
        where = f"is inside the git directory {place}"
    else:
        where = f"is {protected} itself" if itself else f"is inside {protected}/"
    return f"'{shown_path}' {where}, which rho never writes to ({PROTECTED_REASONS[protected]})"


__all__ = ["PROTECTED_NAMES", "PROTECTED_REASONS", "protected_message", "protected_name"]
