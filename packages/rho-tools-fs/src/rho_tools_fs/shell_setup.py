"""What run_command and wait_for share: the shell, the policy, the environment, `cwd` errors.

The command policy and the shell lookup are imported on the first `shell_setup`, so that
registering the tools does not load them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rho_kernel.security import FileTypeError, PathNotFoundError, SandboxError, SandboxRoot

if TYPE_CHECKING:
    from rho_kernel.process import ShellProgram
    from rho_kernel.security import CommandPolicy
    from rho_kernel.tools import ToolContext


@dataclass(frozen=True, slots=True)
class ShellSetup:
    """The shell that runs command lines, the policy they are checked against, and the
    environment they run with."""

    program: ShellProgram
    policy: CommandPolicy
    env: dict[str, str]


def shell_setup(ctx: ToolContext) -> ShellSetup:
    """The setup for `ctx`'s `[shell]` config. Raises `ShellNotFoundError`.

    The environment is rho's own without the API-key variables of every configured
    provider (`api_key_env`), any `*_API_KEY`, `[shell] env_remove`, and the startup-file
    variables `BASH_ENV`/`ENV`.
    """
    from rho_kernel.process import find_shell
    from rho_kernel.security import CommandPolicy

    config = ctx.config
    program = find_shell(config.shell.program)
    policy = CommandPolicy.from_config(config.shell, shell=program.kind)
    return ShellSetup(program, policy, ctx.command_environment())


def cwd_error(tool: str, cwd: str, root: SandboxRoot, exc: SandboxError) -> str:
    """The model's message for a `cwd` the sandbox refused."""
    hint = (
        f"cwd is a directory relative to the project root ({root.path}); an absolute path "
        "must lie inside it"
    )
    if isinstance(exc, PathNotFoundError):
        return f"{tool}: cwd '{cwd}' does not exist. {hint}"
    if isinstance(exc, FileTypeError):
        return f"{tool}: cwd '{cwd}' is not a directory. {hint}"
    return f"{tool}: cwd '{cwd}' is refused: {exc}. {hint}"


_CD = re.compile(
    r"(?:^|[\s;&|(){}`])(?:cd|pushd|set-location|push-location|sl|chdir)(?:\s|$)", re.I
)


def mentions_cd(command: str) -> bool:
    """Whether the line changes directory (`cd`, `pushd`, `Set-Location`, …)."""
    return bool(_CD.search(command))


def quoted(command: str, limit: int = 120) -> str:
    """`command` on one line, at most `limit` characters, in double quotes."""
    flat = " ".join(command.split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 1] + "…") + '"'


__all__ = ["ShellSetup", "cwd_error", "mentions_cd", "quoted", "shell_setup"]
