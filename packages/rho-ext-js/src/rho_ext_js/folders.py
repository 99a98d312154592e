"""Where extensions live: `~/.rho/extensions/` and `<project>/.rho/extensions/`.

Kept apart from `rho_ext_js.discovery` so that start-up can see whether there is anything to
discover without importing it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from rho_kernel import user_home

#: The extension folders, relative to the user's home and to the project root.
EXTENSIONS_DIR = Path(".rho") / "extensions"

Level = Literal["user", "project"]


def extension_dirs(root: Path, home: Path | None = None) -> list[tuple[Level, Path]]:
    """The user's and the project's extension folders, in override order."""
    return [("user", user_home(home) / EXTENSIONS_DIR), ("project", root / EXTENSIONS_DIR)]


def any_entries(root: Path, home: Path | None = None) -> bool:
    """Whether either extension folder holds anything at all (a folder that is missing or
    cannot be read holds nothing). False means discovery would find no extension."""
    for _, directory in extension_dirs(root, home):
        try:
            with os.scandir(directory) as entries:
                if next(entries, None) is not None:
                    return True
        except OSError:
            continue
    return False


__all__ = ["EXTENSIONS_DIR", "Level", "any_entries", "extension_dirs"]
