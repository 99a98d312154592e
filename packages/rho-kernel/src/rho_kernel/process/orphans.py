"""Children die with rho: a parent-death signal armed in every process rho starts.

When rho itself is killed (SIGKILL, the OOM killer) it cannot stop what it started, so each
child asks the kernel to do it: on Linux the child calls `prctl(PR_SET_PDEATHSIG, SIGKILL)`
between fork and exec (`die_with_parent()` gives the `preexec_fn`). The signal comes when
the *thread* that forked the child ends, so children are started from the event loop's
thread, which lives as long as rho.

A `preexec_fn` makes every start a full `fork` of rho (10 ms and more for a large process,
against a few for the `vfork` used otherwise). Where processes are started often (ripgrep,
several times per search), `die_with_parent_argv()` gives the same through an argv prefix:
util-linux `setpriv --pdeathsig KILL --`, which arms the signal and then runs the command
(it lacks only the check that rho is still alive at that moment).

What this does not cover: a grandchild of an unconfined command (the setting is not
inherited across fork; confined commands are covered by bubblewrap's `--die-with-parent`
and PID namespace), and platforms without `prctl` (macOS, Windows), where a child outlives
a killed rho until it finishes or writes to its closed pipe.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable

#: `prctl` option number (linux/prctl.h).
PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's `prctl`, resolved once in the parent (never between fork and exec)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only once a process is started, not at rho's startup

    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` making the child get SIGKILL when rho dies; None where unsupported.

    Call it in the parent just before starting the child (it records rho's pid): if rho
    has already died by the time the child arms the signal, the child kills itself.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:  # runs in the child, between fork and exec
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return arm


@functools.cache
def die_with_parent_argv() -> tuple[str, ...]:
    """The argv prefix that makes the command get SIGKILL when rho dies (`setpriv`), or ()
    when there is none that works (then use `die_with_parent()`). Probed once."""
    if _prctl() is None:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return ()
    prefix = (setpriv, "--pdeathsig", "KILL", "--")
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return prefix if probe.returncode == 0 else ()


__all__ = ["PR_SET_PDEATHSIG", "die_with_parent", "die_with_parent_argv"]
