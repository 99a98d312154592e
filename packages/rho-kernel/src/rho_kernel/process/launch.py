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
    `env`, the environment the process is to have (None: rho's own)."""
    if launcher is None:
        yield Launch(list(argv))
        return
    argv = list(argv)
    outer: dict[str, str] | None = None
    if env is not None:
        from rho_kernel.confinement.environment import split

        argv, outer = split(argv, env)
    launch = getattr(launcher, "launch", None)
    if launch is None:
        yield Launch(list(launcher.wrap(argv, cwd)), env=outer)
        return
    with launch(argv, cwd) as started:
        yield Launch(started.argv, started.pass_fds, outer if started.env is None else started.env)


__all__ = ["Launch", "launching"]
