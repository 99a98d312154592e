"""The macOS backend: `sandbox-exec` with a Seatbelt profile generated from the policy.

The profile allows everything by default and then takes away, in this order (a later rule
wins): every file write; writes to the project, the granted paths, the temporary
directories and the terminal devices are given back; `.git` and `.rho` are read-only again;
credential paths are neither readable nor writable; what root could otherwise still do
from inside is taken away (`PRIVILEGE_RULES`: mounting, device nodes, setuid bits, sysctl
writes, launchd jobs, opening applications or sending them Apple events, other processes'
task ports and signals, and the setuid helpers that grant root); and the network is denied
unless granted. Seatbelt cannot give a process a private `/tmp`, so `/private/tmp` and
`$TMPDIR` are writable instead.

Seatbelt limits a process whatever its uid, and a setuid program it starts stays in the
sandbox; but an allow-by-default profile leaves every operation that is not a file write
open, and several of them act outside the sandbox (a launchd job or an application opened
through LaunchServices runs unconfined), hence the rules below.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem
from rho_kernel.confinement.policy import ConfinementPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
_DEVICES = ('(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/dtracehelper")')


#: Setuid helpers that grant root or schedule work outside the sandbox: never executed.
SETUID_HELPERS: tuple[str, ...] = (
    "/usr/bin/sudo",
    "/usr/bin/su",
    "/usr/bin/login",
    "/usr/bin/newgrp",
    "/usr/bin/at",
    "/usr/bin/atq",
    "/usr/bin/atrm",
    "/usr/bin/batch",
    "/usr/bin/crontab",
    "/usr/libexec/authopen",
    "/usr/libexec/security_authtrampoline",
)
#: Operations an allow-by-default profile would leave to a command (to root above all)
#: that act outside the sandbox or on the system; after every allow rule, so none reopens.
PRIVILEGE_RULES: tuple[str, ...] = (
    "(deny file-mount file-unmount)",
    "(deny file-mknod)",
    "(deny file-write-setugid)",
    "(deny sysctl-write)",
    "(deny job-creation)",
    "(deny lsopen)",
    "(deny appleevent-send)",
    "(deny mach-priv-task-port)",
    "(deny signal)",
    "(allow signal (target same-sandbox))",
    "(deny process-exec " + " ".join(f'(literal "{path}")' for path in SETUID_HELPERS) + ")",
)


def quote(text: str) -> str:
    """`text` as a Seatbelt (Scheme) string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _filter(path: Path) -> str:
    """`(subpath …)`: the path and everything under it (a file is matched exactly too)."""
    return f"(subpath {quote(str(path))})"


def _temporary_dirs() -> list[Path]:
    found = [Path("/private/tmp"), Path("/private/var/folders")]
    if tmpdir := os.environ.get("TMPDIR"):
        found.append(Path(os.path.realpath(tmpdir)))
    return list(dict.fromkeys(found))


def seatbelt_profile(policy: ConfinementPolicy) -> str:
    """The Seatbelt profile (SBPL) for `policy`."""
    writable = [policy.root, *policy.writable]
    if policy.private_tmp:
        writable += _temporary_dirs()
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    allowed = [_filter(path) for path in writable]
    allowed += [*_DEVICES, '(regex #"^/dev/tty")', '(regex #"^/dev/fd/")']
    lines.append("(allow file-write* " + " ".join(allowed) + ")")
    if policy.read_only:
        lines.append("(deny file-write* " + " ".join(map(_filter, policy.read_only)) + ")")
    if policy.read_deny:
        lines.append(
            "(deny file-read* file-write* " + " ".join(map(_filter, policy.read_deny)) + ")"
        )
    lines += PRIVILEGE_RULES
    if policy.network is not True:
        lines.append("(deny network*)")
    elif policy.read_deny:  # a daemon's socket is reached by connecting, not by reading
        sockets = " ".join(
            f"(remote unix-socket (path-literal {quote(str(p))}))" for p in policy.read_deny
        )
        lines.append(f"(deny network-outbound {sockets})")
    return "\n".join(lines) + "\n"


class Seatbelt(ConfinementBackend):
    """Confinement with Seatbelt (`sandbox-exec`), on macOS."""

    name = "seatbelt"
    platforms = ("darwin",)
    enforces_host_lists = False

    def __init__(self, executable: str = SANDBOX_EXEC) -> None:
        """`executable`: the `sandbox-exec` to use."""
        self.executable = executable

    def probe(self) -> ConfinementProblem | None:
        """A trivial command under a minimal profile."""
        if not os.access(self.executable, os.X_OK) and shutil.which(self.executable) is None:
            return ConfinementProblem(
                f"{self.executable} is missing",
                "use a macOS that ships sandbox-exec (10.5 or later)",
            )
        try:
            done = subprocess.run(
                [self.executable, "-p", "(version 1)(allow default)", "/usr/bin/true"],
                capture_output=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return ConfinementProblem(
                f"sandbox-exec could not be run: {exc}", "check the macOS installation"
            )
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            return ConfinementProblem(
                f"sandbox-exec cannot create a sandbox here ({detail})",
                "run rho outside another sandbox (sandboxes do not nest)",
            )
        return None

    def wrap(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> list[str]:
        """`sandbox-exec -p <profile> argv` (the runner sets the working directory)."""
        return [self.executable, "-p", seatbelt_profile(policy), *argv]


__all__ = [
    "PRIVILEGE_RULES",
    "SANDBOX_EXEC",
    "SETUID_HELPERS",
    "Seatbelt",
    "quote",
    "seatbelt_profile",
]
