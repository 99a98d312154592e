"""The errors the sandbox raises, and the messages they carry.

Every message names the path as the caller gave it (shortened when it is very long) and, for
paths the sandbox refuses, the project root, so a model reading it knows what to try instead.
"""

from __future__ import annotations

from pathlib import Path

from rho_kernel.framing import escape_controls

#: How much of a very long path a message quotes.
_SHOWN_CHARS = 160


class SandboxError(Exception):
    """A path was rejected by the sandbox; the message names the path and the root."""

    def __init__(self, message: str, *, path: str | None = None, root: Path | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.root = root


class PathNotFoundError(SandboxError):
    """A path inside the sandbox that must exist does not."""


class ProtectedPathError(SandboxError):
    """A write would land inside `.git` or `.rho` (see `PROTECTED_NAMES`).

    `protected` is the protected name that was met (lower case, e.g. `.git`).
    """

    def __init__(self, message: str, *, protected: str, path: str, root: Path) -> None:
        super().__init__(message, path=path, root=root)
        self.protected = protected


class FileTypeError(SandboxError):
    """The path exists but is the wrong kind of file for the operation.

    `kind` says what was found: `directory`, `file`, `FIFO`, `socket`, `device` or
    `special file`. Tools turn it into their own wording ("is a directory; list it …").
    """

    def __init__(self, message: str, *, kind: str, path: str, root: Path) -> None:
        super().__init__(message, path=path, root=root)
        self.kind = kind


def shown(raw: str) -> str:
    """`raw` for a message: cut to a readable length with `…` when it is very long, its
    control characters escaped (`escape_controls`) so it stays on one line."""
    return escape_controls(raw if len(raw) <= _SHOWN_CHARS else raw[:_SHOWN_CHARS] + "…")


def outside(raw: str, root: Path) -> SandboxError:
    """The path leaves the root (by `..`, an absolute path or a symlink)."""
    return SandboxError(
        f"path '{shown(raw)}' is outside the project sandbox ({root})", path=raw, root=root
    )


def not_found(raw: str, root: Path) -> PathNotFoundError:
    """The path would be inside the root but does not exist."""
    return PathNotFoundError(
        f"path '{shown(raw)}' does not exist in the project sandbox ({root})", path=raw, root=root
    )


def unresolvable(raw: str, root: Path, reason: str) -> SandboxError:
    """The path cannot be followed to its end (`reason` is lower case, no final stop)."""
    return SandboxError(
        f"path '{shown(raw)}' cannot be resolved: {reason} (project sandbox: {root})",
        path=raw,
        root=root,
    )


def dotdot_below_missing(raw: str, root: Path) -> SandboxError:
    """A `..` follows a directory that does not exist (or was just created for the write)."""
    return SandboxError(
        f"path '{shown(raw)}' uses '..' below a directory that does not exist "
        f"(project sandbox: {root})",
        path=raw,
        root=root,
    )


def name_too_long(raw: str, root: Path, name: str, limit: int) -> SandboxError:
    """One component is longer than a file name may be."""
    return SandboxError(
        f"path '{shown(raw)}' cannot be used: the name '{shown(name)}' is longer than "
        f"{limit} bytes (project sandbox: {root})",
        path=raw,
        root=root,
    )


def wrong_type(raw: str, root: Path, kind: str, wanted: str) -> FileTypeError:
    """The path is a `kind` where a `wanted` ("file", "regular file", "directory") is needed."""
    return FileTypeError(
        f"path '{shown(raw)}' is {_with_article(kind)}, not {_with_article(wanted)}",
        kind=kind,
        path=raw,
        root=root,
    )


def _with_article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


__all__ = [
    "FileTypeError",
    "PathNotFoundError",
    "ProtectedPathError",
    "SandboxError",
    "dotdot_below_missing",
    "name_too_long",
    "not_found",
    "outside",
    "shown",
    "unresolvable",
    "wrong_type",
]
