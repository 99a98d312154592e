"""The confinement backend interface: how a policy becomes a confined command."""

from __future__ import annotations

import contextlib
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rho_kernel.confinement.policy import ConfinementPolicy
from rho_kernel.process.launch import Launch


@dataclass(frozen=True, slots=True)
class ConfinementProblem:
    """Why a backend cannot confine commands here (`reason`) and what would fix it (`fix`)."""

    reason: str
    fix: str


class ConfinementBackend(ABC):
    """A way to run a command under a `ConfinementPolicy`.

    Plugins contribute backends with the `rho_register_confinement_backends` hook; `[sandbox]
    backend` names one, otherwise the first that supports the platform and whose `probe`
    finds no problem is used. `wrap` must not start anything itself: the process runner
    starts the argv it returns, in its own process group, and stops that group on timeout
    or abort, so the backend's launcher must take its sandboxed children with it when it
    dies (bubblewrap's `--die-with-parent` and PID namespace do).
    """

    #: The name `[sandbox] backend` and the client see.
    name: str = ""
    #: `sys.platform` prefixes the backend works on (empty: every platform).
    platforms: tuple[str, ...] = ()
    #: Whether a list of hosts in `network` is enforced (otherwise a list means no network).
    enforces_host_lists: bool = False
    #: Whether `wrap` sets `policy.environment` for the command inside the sandbox (never for
    #: its own launcher); otherwise rho puts `env NAME=VALUE…` in front of the command.
    sets_environment: bool = False

    def supports_platform(self, platform: str = sys.platform) -> bool:
        """Whether the backend is meant for `platform`."""
        return not self.platforms or platform.startswith(self.platforms)

    @abstractmethod
    def probe(self) -> ConfinementProblem | None:
        """Check, once, that the backend can confine a command here; None when it can.

        May run a trivial confined command; called in a worker thread after startup."""

    @abstractmethod
    def wrap(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> list[str]:
        """The argv that runs `argv` in working directory `cwd` under `policy`."""

    def limits(self, *, network: bool) -> list[str]:
        """What this backend cannot enforce on this machine (or what it must forbid that
        others allow), one sentence each, for `getState.sandbox.limits`; asked after a
        successful `probe`. `network`: whether commands get the network. Default: none."""
        return []

    @contextlib.contextmanager
    def launch(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> Iterator[Launch]:
        """What the runner starts: by default `wrap`'s argv, with no file descriptors. A
        backend whose launcher reads something from a descriptor (bubblewrap's seccomp
        filter) opens it here and closes it when the block ends (after the start)."""
        yield Launch(self.wrap(argv, policy, cwd))


#: The name before 0.3, kept so that backends written against it still load.
Problem = ConfinementProblem

__all__ = ["ConfinementBackend", "ConfinementProblem", "Problem"]
