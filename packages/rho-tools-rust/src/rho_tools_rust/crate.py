"""Where a cargo command runs: the crate holding a path, inside the project sandbox."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

from rho_kernel.security import SandboxError
from rho_kernel.tools import ToolContext, ToolError

#: The largest Cargo.toml read to find a workspace root (real ones are a few KiB).
MAX_MANIFEST_BYTES = 1024 * 1024


def crate_dir(tool: str, ctx: ToolContext, path: str | None) -> Path:
    """The folder of the nearest Cargo.toml at or above `path` (default: the project root,
    which must then have one), never above the project root. Raises `ToolError`."""
    root = ctx.root.path
    if path is None or path.strip() in ("", "."):
        if not (root / "Cargo.toml").is_file():
            raise ToolError(
                f"{tool}: the project root has no Cargo.toml; pass `path` (a file or "
                "folder of the crate to build)"
            )
        return root
    if "\0" in path:
        raise ToolError(f"{tool}: invalid path")
    try:
        target = ctx.root.validate(path)
    except (SandboxError, OSError) as exc:
        raise ToolError(f"{tool}: path {path[:200]!r}: {exc}") from None
    folder = target if target.is_dir() else target.parent
    while True:
        if (folder / "Cargo.toml").is_file():
            return folder
        if folder == root or root not in folder.parents:
            raise ToolError(f"{tool}: no Cargo.toml at or above {path[:200]!r} in the project")
        folder = folder.parent


def workspace_root(crate: Path) -> Path:
    """The folder cargo's span paths are relative to: the workspace root of `crate`, i.e.
    the nearest Cargo.toml at or above it with a `[workspace]` table (even above the
    project: a member crate opened as the project), else the crate itself."""
    for folder in (crate, *crate.parents):
        if _declares_workspace(folder / "Cargo.toml"):
            return folder
    return crate


def target_inside(env: dict[str, str], crate: Path, project: Path) -> dict[str, str]:
    """`env` with `CARGO_TARGET_DIR` set to `<project>/target` when cargo would build into
    the `target` folder of a workspace above the project (a member crate opened as the
    project): outside the project, where the OS sandbox lets nothing be written. A target
    folder the user chose (`CARGO_TARGET_DIR` already set) is kept."""
    if env.get("CARGO_TARGET_DIR"):
        return env
    root = workspace_root(crate)
    if root == project or project in root.parents:
        return env
    return {**env, "CARGO_TARGET_DIR": str(project / "target")}


def _declares_workspace(manifest: Path) -> bool:
    data = _read_manifest(manifest)
    if data is None:
        return False
    try:
        return isinstance(tomllib.loads(data.decode("utf-8")).get("workspace"), dict)
    except (ValueError, RecursionError):  # not TOML, not UTF-8, nested past all reason
        return False


def _read_manifest(manifest: Path) -> bytes | None:
    """The bytes of a regular file of at most `MAX_MANIFEST_BYTES`, else None. Opened
    without blocking: a repository's `Cargo.toml` may be a FIFO, which a plain open would
    wait on forever."""
    try:
        fd = os.open(manifest, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MANIFEST_BYTES:
            return None
        return handle.read(MAX_MANIFEST_BYTES + 1)[:MAX_MANIFEST_BYTES]


__all__ = ["crate_dir", "target_inside", "workspace_root"]
