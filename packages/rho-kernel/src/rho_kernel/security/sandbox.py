"""The file sandbox: every path a tool touches must resolve inside the project root.

`SandboxRoot.validate` is for paths that must exist (reading, listing): symlinks and `..` are
resolved by the operating system and the canonical result must lie within the canonical root.
`SandboxRoot.validate_for_write` is for paths that may not exist yet: the nearest existing
ancestor is canonicalised, the missing components are appended, and any `..` among those
missing components is rejected outright. A dangling symlink on the way is followed (its target
is validated by the same rules), so writing through it cannot create a file outside the root.

There is a theoretical time-of-check/time-of-use race between validation and the later file
operation; concurrent adversarial filesystem changes are outside the threat model.
"""

from __future__ import annotations

import os
from pathlib import Path

#: How many dangling symlinks `validate_for_write` follows before giving up (like ELOOP).
_MAX_LINK_HOPS = 40


class SandboxError(Exception):
    """A path was rejected by the sandbox; the message names the path and the root."""

    def __init__(self, message: str, *, path: str | None = None, root: Path | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.root = root


class PathNotFoundError(SandboxError):
    """`SandboxRoot.validate` was given a path inside the sandbox that does not exist."""


class SandboxRoot:
    """A canonical project directory that file operations cannot escape."""

    def __init__(self, root: str | Path) -> None:
        """Canonicalise `root`; it must exist and be a directory (else `SandboxError`)."""
        raw = str(root)
        if not raw or "\0" in raw:
            raise SandboxError(f"invalid sandbox root {raw!r}")
        try:
            canonical = Path(os.path.realpath(raw, strict=True))
        except (OSError, RuntimeError) as exc:
            raise SandboxError(f"sandbox root '{raw}' cannot be used: {_reason(exc)}") from None
        if not canonical.is_dir():
            raise SandboxError(f"sandbox root '{raw}' is not a directory")
        self.path: Path = canonical

    def __repr__(self) -> str:
        return f"SandboxRoot({str(self.path)!r})"

    # ── public API ──────────────────────────────────────────────────────────

    def validate(self, path: str | Path) -> Path:
        """The canonical form of an existing `path` inside the sandbox.

        Relative paths are relative to the root; absolute paths are allowed when they resolve
        inside it. The root itself is allowed. Raises `PathNotFoundError` for a missing path
        that would be inside the sandbox and `SandboxError` for everything else (escapes via
        `..`, absolute paths or symlinks, symlink loops, empty paths, NUL bytes).
        """
        raw = self._check_syntax(path)
        candidate = self._absolute(raw)
        try:
            resolved = Path(os.path.realpath(candidate, strict=True))
        except (FileNotFoundError, NotADirectoryError):
            # Report an escape as an escape even when the target is also missing.
            self.validate_for_write(raw)
            raise PathNotFoundError(
                f"path '{raw}' does not exist in the project sandbox ({self.path})",
                path=raw,
                root=self.path,
            ) from None
        except (OSError, RuntimeError) as exc:
            raise SandboxError(
                f"path '{raw}' cannot be resolved: {_reason(exc)} (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            ) from None
        self._check_inside(raw, resolved)
        return resolved

    def validate_for_write(self, path: str | Path) -> Path:
        """The canonical destination for writing `path`, which need not exist yet.

        The nearest existing ancestor is canonicalised and the missing components appended;
        a `..` among the missing components is rejected, and so is a result outside the root.
        """
        raw = self._check_syntax(path)
        return self._resolve_for_write(raw, self._absolute(raw), hops=0)

    def relative(self, path: Path) -> str:
        """`path` relative to the root with `/` separators ("." for the root itself).

        A path outside the root is returned unchanged (absolute, `/` separators).
        """
        try:
            rel = Path(path).relative_to(self.path)
        except ValueError:
            return Path(path).as_posix()
        text = rel.as_posix()
        return text if text else "."

    def contains(self, path: Path) -> bool:
        """Whether the (already canonical) `path` is the root or lies below it."""
        return path.is_relative_to(self.path)

    # ── internals ───────────────────────────────────────────────────────────

    def _check_syntax(self, path: str | Path) -> str:
        raw = os.fspath(path)
        if not isinstance(raw, str):
            raise SandboxError("path must be text", root=self.path)
        if not raw.strip():
            raise SandboxError(
                f"path is empty (project sandbox: {self.path})", path=raw, root=self.path
            )
        if "\0" in raw:
            raise SandboxError(
                f"path {raw!r} contains a NUL byte (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            )
        return raw

    def _absolute(self, raw: str) -> Path:
        candidate = Path(raw)
        return candidate if candidate.is_absolute() else self.path / candidate

    def _check_inside(self, raw: str, resolved: Path) -> None:
        if not self.contains(resolved):
            raise SandboxError(
                f"path '{raw}' is outside the project sandbox ({self.path})",
                path=raw,
                root=self.path,
            )

    def _resolve_for_write(self, raw: str, candidate: Path, hops: int) -> Path:
        missing: list[str] = []
        existing = candidate
        while not os.path.lexists(existing):
            if existing.parent == existing:  # reached the filesystem root without a hit
                break
            missing.append(existing.name)
            existing = existing.parent
        missing.reverse()
        if ".." in missing:
            raise SandboxError(
                f"path '{raw}' uses '..' below a directory that does not exist "
                f"(project sandbox: {self.path})",
                path=raw,
                root=self.path,
            )
        try:
            base = Path(os.path.realpath(existing, strict=True))
        except FileNotFoundError:
            base = self._follow_dangling(raw, existing, hops)
        except (OSError, RuntimeError) as exc:
            raise SandboxError(
                f"path '{raw}' cannot be resolved: {_reason(exc)} (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            ) from None
        resolved = base.joinpath(*missing) if missing else base
        self._check_inside(raw, resolved)
        return resolved

    def _follow_dangling(self, raw: str, existing: Path, hops: int) -> Path:
        """Validate the target of a dangling symlink (or of a path through one) for writing."""
        if hops >= _MAX_LINK_HOPS:
            raise SandboxError(
                f"path '{raw}' cannot be resolved: too many levels of symbolic links "
                f"(project sandbox: {self.path})",
                path=raw,
                root=self.path,
            )
        # Canonicalise the parent first; the last component is the dangling link itself.
        parent = self._resolve_for_write(raw, existing.parent, hops + 1)
        link = parent / existing.name
        try:
            target = os.readlink(link)
        except OSError as exc:
            raise SandboxError(
                f"path '{raw}' cannot be resolved: {_reason(exc)} (project sandbox: {self.path})",
                path=raw,
                root=self.path,
            ) from None
        target_path = Path(target)
        if not target_path.is_absolute():
            target_path = parent / target_path
        return self._resolve_for_write(raw, target_path, hops + 1)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    if isinstance(exc, RuntimeError):
        return "symlink loop"
    return str(exc) or type(exc).__name__


__all__ = ["PathNotFoundError", "SandboxError", "SandboxRoot"]
