"""How rho starts the launcher: `python -I -S -B -c BOOT DOCUMENT -- ARGV…`.

`-I` (isolated: no `PYTHON*` variables, no user site, and neither the working directory,
which is the project, nor any script directory on `sys.path`), `-S` (no site: nothing of
rho's environment is imported, so nothing a project or another package installed there runs
before the restrictions) and `-B` (no bytecode written). The boot line appends the folder
holding this package to `sys.path` (after the standard library, which it cannot shadow).
"""

from __future__ import annotations

import os
import sys

#: The folder holding this package.
FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def boot_line(folder: str = FOLDER) -> str:
    """The `-c` program that runs the launcher found in `folder`."""
    return (
        f"import sys;sys.path.append({folder!r});"
        "from landlock_launcher.main import main;sys.exit(main(sys.argv[1:]))"
    )


def boot_argv(
    document: str, argv: list[str], python: str | None = None, folder: str = FOLDER
) -> list[str]:
    """The argv that runs `argv` confined as `document` (an encoded `Document`) says, with
    the launcher in `folder` (a copy of this package's parent, for tests)."""
    line = boot_line(folder)
    return [python or sys.executable, "-I", "-S", "-B", "-c", line, document, "--", *argv]
