"""Path-based containment checks: canonicalise with `realpath` and compare with the root.

This is what `SandboxRoot.validate`/`validate_for_write` do where directory fds are not
available (Windows). There is a time-of-check/time-of-use gap between such a check and a
later open by path; where `dir_fd` works, `SandboxRoot` resolves through fds instead
(`rho_kernel.security.pathwalk`) and does not use this module.
"""

from __future__ import annotations

import os
from pathlib import Path

from rho_kernel.security import errors
from rho_kernel.security.pathwalk import MAX_SYMLINK_HOPS
from rho_kernel.security.protected import protected_message, protected_name


def check_existing(root: Path, raw: str) -> Path:
    """The canonical form of existing `raw` (relative to `root`), which must lie inside it."""
    candidate = _absolute(root, raw)
    try:
        resolved = Path(os.path.realpath(candidate, strict=True))
    except (FileNotFoundError, NotADirectoryError):
        # Report an escape as an escape even when the target is also missing.
        check_for_write(root, raw, protect=False)
        raise errors.not_found(raw, root) from None
    except (OSError, RuntimeError) as exc:
        raise errors.unresolvable(raw, root, _reason(exc)) from None
    _check_inside(root, raw, resolved)
    return resolved


def check_for_write(root: Path, raw: str, *, protect: bool = True) -> Path:
    """The canonical destination for writing `raw`, which need not exist yet.

    The nearest existing ancestor is canonicalised and the missing components appended; a
    `..` among the missing components is refused, so is a result outside the root and (with
    `protect`) one inside `.git` or `.rho`.
    """
    resolved = _resolve_for_write(root, raw, _absolute(root, raw), hops=0)
    if protect:
        check_protected(root, raw, resolved)
    return resolved


def check_protected(root: Path, raw: str, resolved: Path) -> None:
    """Refuse `raw` when it or its resolved form `resolved` passes through `.git` or `.rho`."""
    # The names as given count too (a symlink called `.git`), but only below the root.
    named = [] if Path(raw).is_absolute() else [p for p in raw.replace("\\", "/").split("/") if p]
    inside = list(resolved.relative_to(root).parts)
    for parts in (named, inside):
        for index, part in enumerate(parts):
            protected = protected_name(part)
            if protected is not None:
                itself = index == len(parts) - 1
                raise errors.ProtectedPathError(
                    protected_message(errors.shown(raw), protected, itself=itself),
                    protected=protected,
                    path=raw,
                    root=root,
                )


def _absolute(root: Path, raw: str) -> Path:
    candidate = Path(raw)
    return candidate if candidate.is_absolute() else root / candidate


def _check_inside(root: Path, raw: str, resolved: Path) -> None:
    if not resolved.is_relative_to(root):
        raise errors.outside(raw, root)


def _resolve_for_write(root: Path, raw: str, candidate: Path, hops: int) -> Path:
    missing: list[str] = []
    existing = candidate
    while not os.path.lexists(existing):
        if existing.parent == existing:  # reached the filesystem root without a hit
            break
        missing.append(existing.name)
        existing = existing.parent
    missing.reverse()
    if ".." in missing:
        raise errors.dotdot_below_missing(raw, root)
    try:
        base = Path(os.path.realpath(existing, strict=True))
    except FileNotFoundError:
        base = _follow_dangling(root, raw, existing, hops)
    except (OSError, RuntimeError) as exc:
        raise errors.unresolvable(raw, root, _reason(exc)) from None
    resolved = base.joinpath(*missing) if missing else base
    _check_inside(root, raw, resolved)
    return resolved


def _follow_dangling(root: Path, raw: str, existing: Path, hops: int) -> Path:
    """Validate the target of a dangling symlink (or of a path through one) for writing."""
    if hops >= MAX_SYMLINK_HOPS:
        raise errors.unresolvable(raw, root, "too many levels of symbolic links")
    # Canonicalise the parent first; the last component is the dangling link itself.
    parent = _resolve_for_write(root, raw, existing.parent, hops + 1)
    link = parent / existing.name
    try:
        target = os.readlink(link)
    except OSError as exc:
        raise errors.unresolvable(raw, root, _reason(exc)) from None
    target_path = Path(target)
    if not target_path.is_absolute():
        target_path = parent / target_path
    return _resolve_for_write(root, raw, target_path, hops + 1)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    if isinstance(exc, RuntimeError):
        return "symlink loop"
    return str(exc) or type(exc).__name__


__all__ = ["check_existing", "check_for_write", "check_protected"]
