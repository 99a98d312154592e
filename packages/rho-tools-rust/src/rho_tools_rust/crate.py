"""Where a cargo command runs: the crate holding a path, inside the project sandbox."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.security import SandboxError
from rho_kernel.tools import ToolContext, ToolError


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


def workspace_root(crate: Path, project: Path) -> Path:
    """The cargo workspace root of `crate` as cargo finds it (the nearest Cargo.toml above
    with a `[workspace]` table, within the project), else the crate itself: the folder
    span paths in cargo's messages are relative to."""
    folder = crate
    while True:
        manifest = folder / "Cargo.toml"
        try:
            if manifest.is_file() and "[workspace]" in manifest.read_text("utf-8", "replace"):
                return folder
        except OSError:
            pass
        if folder == project or project not in folder.parents:
            return crate
        folder = folder.parent


__all__ = ["crate_dir", "workspace_root"]
