"""The user's home directory, and rho's state directory in it, taken the same way by every
part of rho."""

from __future__ import annotations

import os
from pathlib import Path


def user_home(home: Path | None = None) -> Path:
    """`home` when given, else `$HOME`, else `$USERPROFILE`, else `/tmp`."""
    if home is not None:
        return home
    env_home = os.environ.get("HOME") or os.environ.get("USERPROFILE")
    return Path(env_home) if env_home else Path("/tmp")


def state_dir(home: Path | None = None) -> Path:
    """rho's own state directory, `<home>/.rho` (user config, trust store, grants, every
    project's sessions): never a project, and no tool reads or writes in it."""
    return user_home(home) / ".rho"


__all__ = ["state_dir", "user_home"]
