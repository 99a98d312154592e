"""Which shell runs a command line, and the environment it gets."""

from __future__ import annotations

import fnmatch
import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

#: Variables that make a non-interactive bash or sh read a startup file.
STARTUP_FILE_VARIABLES = ("BASH_ENV", "ENV")
#: Always removed from a command's environment: model API keys by their usual names.
SECRET_PATTERNS = ("*_API_KEY",)


class ShellNotFoundError(Exception):
    """The configured shell is not installed."""


@dataclass(frozen=True, slots=True)
class ShellProgram:
    """A shell to run command lines with: its kind ("bash" or "pwsh") and executable."""

    kind: Literal["bash", "pwsh"]
    executable: str

    def argv(self, command: str) -> list[str]:
        """The argument vector that runs `command`: no profile, no rc files."""
        if self.kind == "pwsh":
            return [self.executable, "-NoProfile", "-NonInteractive", "-Command", command]
        if os.path.basename(self.executable).lower().startswith("bash"):
            return [self.executable, "--noprofile", "--norc", "-c", command]
        return [self.executable, "-c", command]


def find_shell(program: str | None) -> ShellProgram:
    """The shell for `[shell] program`: None is bash (`sh` when bash is missing), or on
    Windows `pwsh`, else `powershell`; "pwsh" falls back to "powershell" too."""
    if program is None and sys.platform == "win32":
        program = "pwsh"
    if program in ("pwsh", "powershell"):
        names = ("pwsh", "powershell") if program == "pwsh" else ("powershell", "pwsh")
        for name in names:
            if found := shutil.which(name):
                return ShellProgram("pwsh", found)
        raise ShellNotFoundError(f"PowerShell ({' or '.join(names)}) is not installed")
    for name in ("bash", "sh"):
        if found := shutil.which(name):
            return ShellProgram("bash", found)
    raise ShellNotFoundError("bash is not installed")


def command_environment(
    remove: Iterable[str], base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """`base` (default: rho's environment) without the variables named or matched (glob
    patterns, case-sensitive) by `remove`, `SECRET_PATTERNS` and `STARTUP_FILE_VARIABLES`,
    and without every credential rho uses (`rho_kernel.security.credentials`), whatever
    its name."""
    from rho_kernel.security.credentials import credential_variables

    patterns = [*SECRET_PATTERNS, *STARTUP_FILE_VARIABLES, *(p for p in remove if p)]
    credentials = credential_variables()
    source = os.environ if base is None else base
    return {
        name: value
        for name, value in source.items()
        if name not in credentials
        and not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
    }


__all__ = [
    "SECRET_PATTERNS",
    "STARTUP_FILE_VARIABLES",
    "ShellNotFoundError",
    "ShellProgram",
    "command_environment",
    "find_shell",
]
