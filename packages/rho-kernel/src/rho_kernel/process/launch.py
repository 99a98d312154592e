"""How a launcher's command is started: its argv and the file descriptors the child gets.

A launcher (see `rho_kernel.process.Launcher`) may hand the started process open file
descriptors (bubblewrap reads its seccomp filter from one): its `launch(argv, cwd)` is a
context manager giving a `Launch`; the runner starts `Launch.argv` with `pass_fds` and the
context manager closes its ends once the process has started. A launcher with only `wrap`
gives its argv and no descriptors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.process.runner import Launcher


@dataclass(frozen=True, slots=True)
class Launch:
    """A command ready to start: `argv`, and `pass_fds`, descriptors the process inherits
    under the same numbers (named in `argv`); `env`, when not None, the environment to start
    it with instead of the one asked for (a sandbox's launcher never gets the dynamic
    loader's variables: see `rho_kernel.confinement.environment`)."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()
    env: dict[str, str] | None = None


@contextlib.contextmanager
def launching(
    launcher: Launcher | None,
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
) -> Iterator[Launch]:
    """The `Launch` of `argv` under `launcher` (None: `argv` as is), valid in the block;
    `env`: the environment the process is to have (the project's confinement keeps the
    dynamic loader's variables in it from its launcher: start with `Launch.env` when set)."""
    if launcher is None:
        yield Launch(list(argv))
        return
    launch = getattr(launcher, "launch", None)
    if launch is None:
        yield Launch(list(launcher.wrap(list(argv), cwd)))
        return
    from rho_kernel.confinement.state import ConfinedLauncher

    if env is not None and isinstance(launcher, ConfinedLauncher):
        with launcher.launch(list(argv), cwd, env) as started:
            yield started
        return
    with launch(list(argv), cwd) as started:
        yield started


__all__ = ["Launch", "launching"]
