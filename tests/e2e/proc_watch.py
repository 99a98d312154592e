"""Watching processes through /proc (Linux): wait for a pid file, wait for a process to end.

The deadlines are a safety net for a broken build, never what a test measures: each wait
returns as soon as what it waits for is true.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

DEADLINE = 60.0


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a zombie has ended; only its entry is left)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((line for line in status.splitlines() if line.startswith("State:")), "")
    return "Z" not in state.split()[1:2] and "X" not in state.split()[1:2]


def wait_for_pid_file(path: Path, deadline: float = DEADLINE) -> int:
    """The pid written to `path` (a complete line), once it is there."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        with contextlib.suppress(OSError, ValueError):
            text = path.read_text()
            if text.endswith("\n"):
                return int(text)
        time.sleep(0.02)
    raise TimeoutError(f"no pid in {path}")


def wait_for_exe(pid: int, name: str, deadline: float = DEADLINE) -> None:
    """Until process `pid` runs a program called `name` (after its exec)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        with contextlib.suppress(OSError):
            if os.path.basename(os.readlink(f"/proc/{pid}/exe")) == name:
                return
        time.sleep(0.02)
    raise TimeoutError(f"process {pid} never ran {name}")


def wait_gone(pid: int, deadline: float = DEADLINE) -> bool:
    """Whether process `pid` ended within `deadline` seconds (it is killed if it did not)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.02)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    return False
