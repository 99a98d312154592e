"""The project's confinement: which backend confines commands, under which policy.

Built once per process from `[sandbox]`, the project root and the backends the plugins
contribute. The backend is chosen lazily, by probing, the first time anyone asks (after
startup, or at the first command), and the answer is kept.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from rho_kernel.config.model import SandboxConfig
from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem
from rho_kernel.confinement.environment import env_prefix
from rho_kernel.confinement.environment import split as split_environment
from rho_kernel.confinement.grants import GrantError, WritableGrants
from rho_kernel.confinement.policy import ConfinementPolicy, build_policy
from rho_kernel.diagnostics import info, warn
from rho_kernel.process.errors import ProcessStartError
from rho_kernel.process.launch import Launch
from rho_kernel.security.repositories import Repositories, find_repositories

#: "confined": commands run under `backend`; "unconfined": no backend works here, commands
#: run without one (each only once a person approves it, unless `[sandbox] require = false`);
#: "off": `[sandbox] mode = "off"` (or `--no-sandbox`); "refused": no backend works and
#: `[sandbox] require = true`, so commands do not run at all.
SandboxMode = Literal["confined", "unconfined", "off", "refused"]


class ConfinementRefused(ProcessStartError):
    """No backend can confine the command, and it may not run unconfined: `[sandbox]
    require = true`, or (the default, `"ask"`) nobody approved this one unconfined run."""


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """How commands run, as `getState`, `listTools` and `approval/request` report it."""

    mode: SandboxMode
    backend: str | None = None
    network: bool | list[str] = False
    writable: list[str] = field(default_factory=list)
    pending_writable: list[str] = field(default_factory=list)
    problem: str | None = None
    fix: str | None = None
    #: What the backend cannot enforce on this machine (`ConfinementBackend.limits`).
    limits: list[str] = field(default_factory=list)
    #: Unconfined, and `[sandbox] require = "ask"`: every command asks a person, whatever
    #: the rules, the approval mode or a plugin say; unattended, none runs.
    asks: bool = False


@dataclass(frozen=True, slots=True)
class ConfinedLauncher:
    """A `rho_kernel.process.Launcher` that runs every command under one backend and policy.

    `repositories` is the walk of the project the policy was made from (None: not known);
    `created_since_start` walks again to name what a command created that the policy could
    not cover."""

    backend: ConfinementBackend
    policy: ConfinementPolicy
    repositories: Repositories | None = None

    def created_since_start(self) -> list[Path]:
        """Every `.git`, `.rho` or git directory in the project that is new, or was
        replaced, since the policy was made (empty without `repositories`)."""
        return self.changes_since_start()[0]

    def changes_since_start(self) -> tuple[list[Path], list[Path]]:
        """(created, revealed): what `created_since_start` names, split into what the
        command made and what only became visible (it lies in a directory the walk before
        the command could not list)."""
        if self.repositories is None:
            return [], []
        now = find_repositories(self.repositories.root)
        revealed = now.revealed_since(self.repositories)
        created = [path for path in now.created_since(self.repositories) if path not in revealed]
        return created, revealed

    @property
    def name(self) -> str:
        """The backend's name (recorded on the `ProcessResult` as `confined_by`)."""
        return self.backend.name

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        """`argv` under the backend and policy, without what `launch` hands the process
        (bubblewrap's seccomp filter): the runner starts commands through `launch`."""
        return self.backend.wrap(argv, self.policy, cwd)

    def launch(
        self, argv: list[str], cwd: Path, env: Mapping[str, str] | None = None
    ) -> AbstractContextManager[Launch]:
        """`argv` under the backend and policy, with the descriptors it needs (what the
        process runner starts; see `ConfinementBackend.launch`). With `env`, the process's
        environment: the dynamic loader's variables in it are set inside the sandbox only,
        and the `Launch` says what the launcher starts with (`Launch.env`)."""
        if env is None:
            return self.backend.launch(argv, self.policy, cwd)
        return _with_environment(self.backend, self.policy, argv, cwd, env)


@contextlib.contextmanager
def _with_environment(
    backend: ConfinementBackend,
    policy: ConfinementPolicy,
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
) -> Iterator[Launch]:
    """`backend.launch` of `argv` whose launcher never gets the loader's variables of `env`."""
    inner, outer = split_environment(env)
    if inner and backend.sets_environment:
        policy = replace(policy, environment=tuple(inner.items()))
    elif inner:
        argv = [*env_prefix(inner), *argv]
    with backend.launch(argv, policy, cwd) as started:
        yield Launch(started.argv, started.pass_fds, outer)


class Confinement:
    """The confinement of one project's commands (thread-safe)."""

    def __init__(
        self,
        settings: SandboxConfig,
        root: Path,
        *,
        home: Path,
        backends: Sequence[ConfinementBackend],
        grants: WritableGrants | None = None,
        report: Callable[[str], None] = warn,
        inform: Callable[[str], None] = info,
    ) -> None:
        """Nothing is probed here; see `status`. `report` gives warnings, `inform` the
        announcement of a working sandbox."""
        self.settings = settings
        self.root = root
        self.home = home
        self.backends = list(backends)
        self._grants = grants
        self.report = report
        self.inform = inform
        self._lock = threading.Lock()
        self._flag_lock = threading.Lock()
        self._chosen: tuple[ConfinementBackend | None, ConfinementProblem | None] | None = None
        self._announced = False
        self._announced_hosts = False

    # ── the backend ─────────────────────────────────────────────────────────

    def _choose(self) -> tuple[ConfinementBackend | None, ConfinementProblem | None]:
        with self._lock:
            if self._chosen is None:
                self._chosen = self._probe()
            return self._chosen

    def _probe(self) -> tuple[ConfinementBackend | None, ConfinementProblem | None]:
        wanted = self.settings.backend
        if wanted is not None:
            named = [b for b in self.backends if b.name == wanted]
            if not named:
                known = ", ".join(b.name for b in self.backends) or "none"
                return None, ConfinementProblem(
                    f"no sandbox backend is named '{wanted}' (installed: {known})",
                    "set [sandbox] backend to one of them, or remove it",
                )
            candidates = named
        else:
            candidates = [b for b in self.backends if b.supports_platform()]
        problems: list[ConfinementProblem] = []
        for backend in candidates:
            try:
                problem = backend.probe()
            except Exception as exc:  # a broken plugin backend must not stop rho
                problem = ConfinementProblem(
                    f"the {backend.name} backend failed: {exc}", "report it"
                )
            if problem is None:
                return backend, None
            problems.append(problem)
        if not problems:
            return None, ConfinementProblem(
                "no sandbox backend supports this platform",
                "run rho on Linux with bubblewrap, or on macOS",
            )
        # Every backend's reason; the first one's fix (the preferred backend's).
        reasons = "; ".join(dict.fromkeys(problem.reason for problem in problems))
        return None, ConfinementProblem(reasons, problems[0].fix)

    # ── what clients and tools see ─────────────────────────────────────────

    def status(self) -> SandboxStatus:
        """How commands run now (probes the backends on first use)."""
        granted, pending = self._writable()
        if self.settings.mode == "off":
            return SandboxStatus("off", problem='[sandbox] mode = "off"', fix=_OFF_FIX)
        backend, problem = self._choose()
        if backend is None:
            assert problem is not None
            require = self.settings.require
            mode: SandboxMode = "refused" if require is True else "unconfined"
            return SandboxStatus(
                mode, problem=problem.reason, fix=problem.fix, asks=require == "ask"
            )
        network = self._network(backend)
        return SandboxStatus(
            "confined",
            backend=backend.name,
            network=network,
            writable=granted,
            pending_writable=pending,
            limits=self._limits(backend, network=network is True),
        )

    def _limits(self, backend: ConfinementBackend, *, network: bool) -> list[str]:
        try:
            return [str(line) for line in backend.limits(network=network)]
        except Exception as exc:  # a broken plugin backend must not stop rho
            return [f"the {backend.name} backend could not say what it cannot enforce: {exc}"]

    def launcher(
        self, *, network: bool = False, approved_unconfined: bool = False
    ) -> ConfinedLauncher | None:
        """How to start the next command: None runs it unconfined (mode off; or no backend,
        and `require = false` or, under `"ask"`, `approved_unconfined`: a person approved
        this very run knowing it is unconfined). Raises `ConfinementRefused` when it must
        not run. `network=True` grants the whole network to this one command (an approved
        escalation), whatever `[sandbox] network` says."""
        if self.settings.mode == "off":
            return None
        backend, problem = self._choose()
        if backend is None:
            assert problem is not None
            require = self.settings.require
            if require is True:
                raise ConfinementRefused(
                    f"commands are refused: [sandbox] require = true, but {problem.reason}; "
                    f"to fix it, {problem.fix}"
                )
            if require == "ask" and not approved_unconfined:
                raise ConfinementRefused(unapproved_reason(problem))
            return None
        granted, _ = self._writable()
        found = find_repositories(Path(os.path.realpath(self.root)))
        policy = build_policy(
            self.root,
            home=self.home,
            writable=granted,
            extra_read_deny=self.settings.extra_read_deny,
            network=True if network else self._network(backend),
            repositories=found,
        )
        return ConfinedLauncher(backend, policy, found)

    def announce(self) -> None:
        """Say once how commands will run (`sandbox_announcement`): through `inform` when
        they are confined, as a warning through `report` otherwise."""
        status = self.status()
        if self._first("_announced"):
            say = self.inform if status.mode == "confined" else self.report
            say(sandbox_announcement(status))

    def _first(self, flag: str) -> bool:
        """Set the once-only `flag`; True for the one caller that set it."""
        with self._flag_lock:
            if getattr(self, flag):
                return False
            setattr(self, flag, True)
            return True

    # ── network and writable paths ─────────────────────────────────────────

    def _network(self, backend: ConfinementBackend) -> bool | list[str]:
        network = self.settings.network
        if isinstance(network, list) and not backend.enforces_host_lists:
            if network and self._first("_announced_hosts"):
                self.report(
                    f"[sandbox] network lists hosts ({', '.join(network)}), but the "
                    f"{backend.name} backend cannot limit the network by host: commands get "
                    "no network; set network = true to allow all of it"
                )
            return False
        return network

    @property
    def grants(self) -> WritableGrants:
        """The user's recorded grants (read on first use)."""
        if self._grants is None:
            self._grants = WritableGrants.load(self.home)
        return self._grants

    def _writable(self) -> tuple[list[str], list[str]]:
        """The configured extra writable entries: (granted, not yet granted)."""
        if not self.settings.writable:
            return [], []
        granted = self.grants.granted(self.root)
        entries = list(dict.fromkeys(self.settings.writable))
        return [e for e in entries if e in granted], [e for e in entries if e not in granted]

    def pending_writable(self) -> list[str]:
        """Configured writable paths the user has not yet granted (asked for by approval)."""
        if self.settings.mode == "off":
            return []
        return self._writable()[1]

    def grant(self, entries: list[str]) -> None:
        """Record `entries` as granted for this project (reported if it cannot be saved)."""
        try:
            self.grants.grant(self.root, entries)
        except GrantError as exc:
            self.report(f"the writable paths could not be recorded: {exc}")


_OFF_FIX = 'remove [sandbox] mode = "off" (or --no-sandbox) to confine commands'
#: How to opt out of asking for every unconfined command.
OPT_OUT = "set [sandbox] require = false (or start rho with --no-sandbox) to run them anyway"


def unapproved_reason(problem: ConfinementProblem) -> str:
    """Why a command that nobody approved does not run where nothing confines it."""
    return (
        f"no OS sandbox works here ({problem.reason}), so every command needs a person's "
        f"approval, and this one has none; to fix it, {problem.fix}, or {OPT_OUT}"
    )


def sandbox_summary(status: SandboxStatus) -> str:
    """One line for a person: how the next command will run."""
    if status.mode == "confined":
        net = "network on" if status.network is True else "no network"
        return f"confined ({status.backend}, {net})"
    if status.mode == "off":
        return "unconfined (the sandbox is off)"
    if status.mode == "refused":
        return "refused (no OS sandbox works here)"
    if status.asks:
        return "unconfined: no OS sandbox works here (every command asks)"
    return "unconfined: no OS sandbox works here"


def sandbox_announcement(status: SandboxStatus) -> str:
    """What a front end says once at start: how commands will run, and why."""
    if status.mode == "confined":
        net = "with network" if status.network is True else "without network"
        text = f"commands run confined by {status.backend} ({net})"
        return f"{text}; here it cannot: {'; '.join(status.limits)}" if status.limits else text
    if status.mode == "off":
        return f"commands run unconfined: {status.problem}; {status.fix}"
    reason = f"no OS sandbox works here ({status.problem})"
    if status.mode == "refused":
        return (
            f"commands will not run: [sandbox] require = true, and {reason}; to fix it, "
            f"{status.fix}"
        )
    if status.asks:
        return (
            f"commands would run unconfined: {reason}; every command asks for your "
            f"approval, whatever the rules and mode (and none runs unattended); to fix it, "
            f"{status.fix}, or {OPT_OUT}"
        )
    return f"commands run unconfined ([sandbox] require = false): {reason}; to fix it, {status.fix}"


__all__ = [
    "OPT_OUT",
    "ConfinedLauncher",
    "Confinement",
    "ConfinementRefused",
    "SandboxMode",
    "SandboxStatus",
    "sandbox_announcement",
    "sandbox_summary",
    "unapproved_reason",
]
