"""No privileges for the command, for good: no capability it could use or get back, and
`no_new_privs` (no set-ID program or file capability raises it; Landlock and seccomp
require it).

A root rho's command keeps uid 0 where no user namespace could be made, but without one
capability: the bounding set is emptied (so no `exec` gives any back), the ambient set
cleared, and the secure bits locked so that uid 0 is never special again.
"""

from __future__ import annotations

import errno

from .syscalls import (
    PR_CAP_AMBIENT,
    PR_CAP_AMBIENT_CLEAR_ALL,
    PR_CAPBSET_DROP,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_SECUREBITS,
    capset_none,
    install_seccomp,
    prctl,
)

#: SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP, SECBIT_NO_CAP_AMBIENT_RAISE, each with its lock,
#: and SECBIT_KEEP_CAPS_LOCKED (keep-caps off for good).
SECURE_BITS = 0b1110_1111
_LAST_CAP_FILE = "/proc/sys/kernel/cap_last_cap"


def _last_capability() -> int:
    try:
        with open(_LAST_CAP_FILE, encoding="ascii") as file:
            return int(file.read())
    except (OSError, ValueError):
        return 63


def drop_privileges() -> None:
    """Every capability gone for good, then `no_new_privs`. The steps that need a
    capability (secure bits, the bounding set) are skipped by a process that has none."""
    try:
        prctl(PR_SET_SECUREBITS, SECURE_BITS, what="securebits")
    except OSError as exc:
        if exc.errno != errno.EPERM:
            raise
    for capability in range(_last_capability() + 1):
        try:
            prctl(PR_CAPBSET_DROP, capability, what="drop a capability")
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EINVAL):
                raise
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, what="ambient capabilities")
    except OSError as exc:
        if exc.errno != errno.EINVAL:  # kernels before 4.3 have no ambient set
            raise
    capset_none()
    prctl(PR_SET_NO_NEW_PRIVS, 1, what="no_new_privs")


def filter_system_calls(program: bytes) -> None:
    """Load rho's seccomp filter (after `drop_privileges`)."""
    if program:
        install_seccomp(program)
