"""How a launcher's command is started: its argv and the file descriptors the child gets.

A launcher (see `rho_kernel.process.Launcher`) may hand the started process open file
descriptors (bubblewrap reads its seccomp filter from one): its `launch(argv, cwd)` is a
context manager giving a `Launch`; the runner starts `Launch.argv` with `pass_fds` and the
context manager closes its ends once the process has started. A launcher with only `wrap`
gives its argv and no descriptors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.process.runner import Launcher


@dataclass(frozen=True, slots=True)
class Launch:
    """A command ready to start: `argv`, and `pass_fds`, descriptors the process inherits
    under the same numbers (named in `argv`)."""

    argv: list[str]
    pass_fds: tuple[int, ...] = ()


@contextlib.contextmanager
def launching(launcher: Launcher | None, argv: list[str], cwd: Path) -> Iterator[Launch]:
    """The `Launch` of `argv` under `launcher` (None: `argv` as is), valid in the block."""
    if launcher is None:
        yield Launch(list(argv))
        return
    launch = getattr(launcher, "launch", None)
    if launch is None:
        yield Launch(list(launcher.wrap(list(argv), cwd)))
        return
    with launch(list(argv), cwd) as started:
        yield started


__all__ = ["Launch", "launching"]
