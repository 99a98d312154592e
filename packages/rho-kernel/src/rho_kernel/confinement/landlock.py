"""The Linux backend that needs no install: Landlock and seccomp, plus namespaces where the
machine allows them.

Used where bubblewrap is missing or cannot start. Every command starts through the launcher
(`confinement.landlock_launcher`, a standard-library program run as `python -I -S`), which
confines itself and then `exec`s the command. What it can do depends on the machine, found
once by the probe (the first of these that works):

- `"user"`: a user namespace of its own, then mount, PID, IPC and network namespaces: the
  same confinement as bubblewrap's (a root rho's command runs as uid 65534);
- `"mount"`: a root rho where user namespaces are off: the same, but the command keeps uid 0
  (without a single capability);
- `"none"`: Landlock and seccomp alone (most containers): what Landlock cannot express
  costs some freedom instead of safety, and `limits` says which.

The kernel's Landlock ABI decides the rest (TCP rules from 4, scoped signals and abstract
sockets from 6); `limits` names what this machine cannot enforce, for `getState`.
"""

from __future__ import annotations

import atexit
import os
import platform
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem
from rho_kernel.confinement.landlock_launcher.boot import FOLDER, boot_argv
from rho_kernel.confinement.landlock_launcher.document import Document
from rho_kernel.confinement.policy import ConfinementPolicy
from rho_kernel.confinement.seccomp import MACHINES, FilterOptions, filter_for_machine

if TYPE_CHECKING:
    from rho_kernel.confinement.landlock_launcher.document import Namespaces

#: The uid and gid a root rho's command has in its user namespace ("nobody").
UNPRIVILEGED_ID = 65534
#: The probe's order: the most confinement first.
TIERS: tuple[Namespaces, ...] = ("user", "mount", "none")
_PROBE_TIMEOUT = 20.0
_KERNEL_HINT = (
    "install bubblewrap (the 'bubblewrap' package), or run a kernel with Landlock enabled "
    "(Linux 5.13 or later, 'landlock' in its lsm= list)"
)


def landlock_abi() -> int:
    """The running kernel's Landlock ABI version (0: none)."""
    from rho_kernel.confinement.landlock_launcher.syscalls import landlock_abi as read

    try:
        return read()
    except (OSError, AttributeError):
        return 0


class Landlock(ConfinementBackend):
    """Confinement with Landlock and seccomp, on Linux (see the module)."""

    name = "landlock"
    platforms = ("linux",)
    enforces_host_lists = False
    sets_environment = True

    def __init__(
        self,
        *,
        namespaces: Namespaces | None = None,
        python: str | None = None,
        folder: str | None = None,
    ) -> None:
        """`namespaces`: use this tier instead of probing for the best one (tests use it to
        try every tier on one machine); `python`: the interpreter that runs the launcher;
        `folder`: where the launcher package lies (default: rho's own)."""
        self.forced = namespaces
        self.python = python
        self.folder = folder or FOLDER
        self.namespaces: Namespaces | None = None
        self.abi = 0
        self._tmpdir: str | None = None
        self._lock = threading.Lock()

    # ── probing ─────────────────────────────────────────────────────────────

    def probe(self) -> ConfinementProblem | None:
        """The kernel's ABI, then a trivial command in each tier until one works."""
        if platform.machine().lower() not in MACHINES:
            return ConfinementProblem(
                f"the Landlock backend needs an x86-64 or AArch64 machine (not "
                f"{platform.machine() or 'unknown'})",
                "install bubblewrap (the 'bubblewrap' package)",
            )
        self.abi = landlock_abi()
        if self.abi < 1:
            return ConfinementProblem(
                "this kernel has no Landlock (or it is disabled)", _KERNEL_HINT
            )
        failures = []
        for tier in (self.forced,) if self.forced else TIERS:
            said = self._try(tier)
            if said is None:
                self.namespaces = tier
                return None
            failures.append(f"{tier}: {said}")
        return ConfinementProblem(
            f"the Landlock launcher cannot confine a command here ({'; '.join(failures)})",
            _KERNEL_HINT,
        )

    def _try(self, tier: Namespaces) -> str | None:
        """Run `true` confined in `tier`; None when it worked, else what went wrong."""
        place = tempfile.mkdtemp(prefix="rho-landlock-probe-")
        try:
            real = Path(os.path.realpath(place))
            argv = self._argv(["true"], ConfinementPolicy(root=real), real, tier)
            done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return str(exc)
        finally:
            shutil.rmtree(place, ignore_errors=True)
        if done.returncode == 0:
            return None
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"

    # ── commands ────────────────────────────────────────────────────────────

    def wrap(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> list[str]:
        """The launcher's argv for `argv` under `policy` (probe first: the tier is the
        probe's, or `"none"` when it never ran)."""
        return self._argv(argv, policy, cwd, self.namespaces or self.forced or "none")

    def _argv(
        self, argv: list[str], policy: ConfinementPolicy, cwd: Path, tier: Namespaces
    ) -> list[str]:
        network = policy.network is True
        # Without a network namespace, seccomp refuses the sockets that would reach out.
        options = FilterOptions(namespaces=True, network=not network and tier == "none")
        document = Document(
            root=str(policy.root),
            cwd=str(cwd),
            namespaces=tier,
            writable=tuple(str(p) for p in policy.writable),
            read_only=tuple(str(p) for p in policy.read_only),
            read_deny=tuple(str(p) for p in policy.read_deny),
            network=network,
            tmpdir=self._temp_directory() if tier == "none" else None,
            seccomp=filter_for_machine(options=options) or b"",
            inner_id=UNPRIVILEGED_ID if tier == "user" and _is_root() else None,
            environment=dict(policy.environment),
        )
        return boot_argv(document.encode(), argv, self.python, self.folder)

    def _temp_directory(self) -> str:
        """A directory of this rho's for the commands' temporary files (without a private
        `/tmp`, the shared one stays out of their reach); removed when rho exits."""
        with self._lock:
            if self._tmpdir is None or not os.path.isdir(self._tmpdir):
                self._tmpdir = os.path.realpath(tempfile.mkdtemp(prefix="rho-commands-"))
                atexit.register(shutil.rmtree, self._tmpdir, True)
            return self._tmpdir

    # ── what it cannot do here ──────────────────────────────────────────────

    def limits(self, *, network: bool) -> list[str]:
        """What commands can do here that the sandbox would rather stop, or cannot do that
        they could elsewhere (after the probe)."""
        tier, abi = self.namespaces, self.abi
        if tier is None:
            return []
        found = []
        if tier != "user" and _is_root():
            found.append("commands run as root without capabilities (no user namespace here)")
        if tier == "none":
            found += [
                "no namespace can be made here: commands cannot create, remove or rename "
                "anything directly in a folder that holds a .git or .rho (the project's top "
                "folder, mostly), since a right to create there would reach into .git; its "
                "files can still be changed, and rho's file tools can create them",
                "/tmp is shared: commands get a temp directory of their own in TMPDIR",
                "a command's background processes can outlive it, and other processes are visible",
            ]
            if network:
                found.append(
                    "with the network on, local sockets such as /run/docker.sock can be reached"
                )
            else:
                found.append("no local network either: 127.0.0.1 cannot be reached")
            if abi < 6:
                found.append(
                    f"commands can signal rho and your other processes (Landlock ABI {abi}; "
                    "6 scopes signals)"
                )
        if abi < 2:
            found.append(
                "files cannot be moved or linked from one folder to another (Landlock ABI 1)"
            )
        return found


def _is_root() -> bool:
    return os.geteuid() == 0


__all__ = ["TIERS", "UNPRIVILEGED_ID", "Landlock", "landlock_abi"]
