"""A process that swaps two directory entries with renameat2(RENAME_EXCHANGE) in a loop.

`exchanging(directory, a, b)` starts it (this file run as a script), waits until it has made
its first exchange and stops it when the block ends. The racing process is a real process,
so it swaps while rho (or the tool under test) runs, not in turns with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

AT_FDCWD = -100
RENAME_EXCHANGE = 2


def _loop(directory: str, first: str, second: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    os.chdir(directory)
    a, b = os.fsencode(first), os.fsencode(second)
    if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit(f"renameat2: {os.strerror(ctypes.get_errno())}")
    print("ready", flush=True)
    while True:
        renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)


@contextlib.contextmanager
def exchanging(directory: Path, first: str, second: str) -> Iterator[subprocess.Popen[str]]:
    """Swap `directory/first` and `directory/second` over and over during the block."""
    process = subprocess.Popen(
        [sys.executable, __file__, str(directory), first, second],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n", "the exchange loop did not start"
        yield process
        assert process.poll() is None, "the exchange loop stopped early"
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    _loop(*sys.argv[1:4])
