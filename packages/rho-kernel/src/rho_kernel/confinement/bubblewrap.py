"""The Linux backend: bubblewrap (`bwrap`) with a read-only root and no network.

The command sees the whole file system read-only, its own `/dev`, `/proc` and empty
`/tmp`, the project (and granted paths) writable except every `.git` and `.rho` in it, and
empty read-only stand-ins where credentials live. It runs in new user, PID, IPC, UTS and
network namespaces (the network one is shared back only when granted) and in its own
session (no terminal injection). Killing bwrap kills everything inside: the sandbox's
init dies with its parent (`--die-with-parent`), and the PID namespace dies with its init.

Whatever uid rho runs as, the command has no capabilities: it runs in a user namespace of
its own (`--unshare-user`, never skipped the way `--unshare-all` skips it for root), with
every capability dropped (`--cap-drop ALL`), as an unprivileged uid when rho is root
(`--uid`/`--gid` 65534), and cannot make user namespaces of its own (`--disable-userns`,
where the installed bwrap has it). So it cannot mount, unmount or remount anything, nor
`chroot`, `pivot_root`, `mknod` a device or open a raw socket.

Nor can it make a setuid or setgid file (which, owned by root when rho is root, any local
user could run as root): bwrap loads a seccomp filter (`confinement.seccomp`) from a pipe
passed as `--seccomp FD` (see `launch`), on the machines it is made for.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem
from rho_kernel.confinement.policy import ConfinementPolicy
from rho_kernel.confinement.seccomp import filter_for_machine
from rho_kernel.diagnostics import warn
from rho_kernel.process.launch import Launch

INSTALL_HINT = (
    "install bubblewrap (the 'bubblewrap' package: apt install bubblewrap, "
    "dnf install bubblewrap, pacman -S bubblewrap)"
)
_NAMESPACE_HINT = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and "
    "user.max_user_namespaces > 0; on Ubuntu 24.04+ an AppArmor profile for bwrap), or "
    "install bwrap setuid"
)
_PROBE_TIMEOUT = 10.0
#: The uid and gid a command runs as when rho is root ("nobody" on most systems).
UNPRIVILEGED_ID = 65534
#: Options that only newer bwrap releases have, used when `bwrap --help` lists them.
_OPTIONAL = ("--disable-userns",)
_known_options: dict[str, frozenset[str]] = {}
_options_lock = threading.Lock()


def bwrap_options(executable: str) -> frozenset[str]:
    """The optional bwrap options (`_OPTIONAL`) that `executable` knows, read once from
    `bwrap --help` and kept for the life of the process (nothing when it cannot be read)."""
    with _options_lock:
        known = _known_options.get(executable)
        if known is None:
            known = _known_options[executable] = _read_options(executable)
        return known


def _read_options(executable: str) -> frozenset[str]:
    try:
        done = subprocess.run(
            [executable, "--help"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    listed = set(re.findall(r"(?m)^\s*(--[a-z-]+)", text))
    return frozenset(option for option in _OPTIONAL if option in listed)


def _identity_options(executable: str) -> list[str]:
    """A user namespace with no capabilities and, for root, an unprivileged uid."""
    args = ["--unshare-user", "--cap-drop", "ALL"]
    if "--disable-userns" in bwrap_options(executable):
        args.append("--disable-userns")
    if hasattr(os, "geteuid") and (os.geteuid() == 0 or os.getuid() == 0):
        args += ["--uid", str(UNPRIVILEGED_ID), "--gid", str(UNPRIVILEGED_ID)]
    return args


@cache
def _filter() -> bytes | None:
    return filter_for_machine()


def _filter_pipe(program: bytes) -> int:
    """The read end of a pipe holding `program` and then its end (the filter is a few
    hundred bytes, far below a pipe's buffer, so the write cannot block)."""
    read, write = os.pipe()
    try:
        os.write(write, program)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read


class Bubblewrap(ConfinementBackend):
    """Confinement with bubblewrap, on Linux."""

    name = "bubblewrap"
    platforms = ("linux",)
    enforces_host_lists = False
    sets_environment = True

    def __init__(self, executable: str | None = None) -> None:
        """`executable`: the `bwrap` to use (default: found on PATH when probed)."""
        self.executable = executable

    def _find(self) -> str | None:
        if self.executable is None:
            self.executable = shutil.which("bwrap")
        return self.executable

    def probe(self) -> ConfinementProblem | None:
        """A trivial command under the same namespaces and mounts as a real one."""
        executable = self._find()
        if executable is None:
            return ConfinementProblem("bubblewrap (bwrap) is not installed", INSTALL_HINT)
        policy = ConfinementPolicy(root=Path(os.path.realpath("/")), read_only=(), writable=())
        if _filter() is None:
            warn(
                "commands can create setuid and setgid files in the project: bubblewrap's "
                "seccomp filter is made for x86-64 and AArch64 only"
            )
        try:
            with self.launch(["true"], policy, Path("/")) as launch:
                done = subprocess.run(
                    launch.argv,
                    capture_output=True,
                    timeout=_PROBE_TIMEOUT,
                    check=False,
                    pass_fds=launch.pass_fds,
                )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return ConfinementProblem(f"bubblewrap could not be run: {exc}", INSTALL_HINT)
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = said[-1] if said else f"exit status {done.returncode}"
            return ConfinementProblem(
                f"bubblewrap cannot create a sandbox here ({detail})", _NAMESPACE_HINT
            )
        return None

    @contextlib.contextmanager
    def launch(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> Iterator[Launch]:
        """`wrap`'s argv with the seccomp filter: bwrap reads it from a pipe it inherits
        (one per command, closed here once bwrap has started). No filter where there is
        none for the machine (`seccomp.filter_for_machine`)."""
        program = _filter()
        if program is None:
            yield Launch(self.wrap(argv, policy, cwd))
            return
        fd = _filter_pipe(program)
        try:
            yield Launch(self.wrap(argv, policy, cwd, seccomp_fd=fd), (fd,))
        finally:
            os.close(fd)

    def wrap(
        self,
        argv: list[str],
        policy: ConfinementPolicy,
        cwd: Path,
        *,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        """`bwrap <namespaces> <mounts> --chdir cwd -- argv`; `--seccomp seccomp_fd` when
        given (`launch` gives it: commands are started through `launch`)."""
        executable = self._find() or "bwrap"
        args = [executable, "--die-with-parent", "--new-session", "--unshare-all"]
        args += _identity_options(executable)
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        if policy.network is True:
            args.append("--share-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        if policy.private_tmp:
            args += ["--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        for path in (policy.root, *policy.writable):
            if path.exists():
                args += ["--bind", str(path), str(path)]
        for real in _read_only_mounts(policy):
            args += ["--ro-bind", real, real]
        for path in policy.read_deny:
            args += _hidden(path)
        for name, value in policy.environment:
            args += ["--setenv", name, value]
        return [*args, "--chdir", str(cwd), "--", *argv]


def _read_only_mounts(policy: ConfinementPolicy) -> list[str]:
    """The canonical read-only paths that lie in a writable place (everything else is
    read-only already). A path elsewhere is never bound: a repository's `.git` linking to
    `/proc` or `/` must not mount the host's `/proc` (or `/`, over the project) again."""
    writable = [Path(os.path.realpath(p)) for p in (policy.root, *policy.writable)]
    found = []
    for path in policy.read_only:
        if not path.exists():
            continue
        real = Path(os.path.realpath(path))
        if any(real == place or place in real.parents for place in writable):
            found.append(str(real))
    return list(dict.fromkeys(found))


def _hidden(path: Path) -> list[str]:
    """Mounts that leave nothing readable at `path` (nothing when it does not exist)."""
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists() or path.is_socket()
    except OSError:
        return []
    if not exists:
        return []
    if is_dir:
        return ["--tmpfs", str(path), "--remount-ro", str(path)]
    return ["--ro-bind", os.devnull, str(path)]


__all__ = ["INSTALL_HINT", "UNPRIVILEGED_ID", "Bubblewrap", "bwrap_options"]
