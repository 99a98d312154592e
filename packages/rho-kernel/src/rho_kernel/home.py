"""The user's home directory, taken the same way by every part of rho."""

from __future__ import annotations

import os
from pathlib import Path


def user_home(home: Path | None = None) -> Path:
    """`home` when given, else `$HOME`, else `$USERPROFILE`, else `/tmp`."""
    if home is not None:
        return home
    env_home = os.environ.get("HOME") or os.environ.get("USERPROFILE")
    return Path(env_home) if env_home else Path("/tmp")


__all__ = ["user_home"]
