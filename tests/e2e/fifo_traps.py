"""FIFOs a test lays as traps, and how a test is sure nothing is left waiting on them."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path


def nobody_waits(fifo: Path) -> bool:
    """Whether no process waits to read `fifo` (opening its writing end without waiting
    finds no reader). A reader found waiting is given an end of file."""
    try:
        descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        return exc.errno == errno.ENXIO
    os.close(descriptor)
    return False


def freed_fifos() -> Iterator[list[Path]]:
    """The body of a fixture: the list of FIFOs a test makes. As the test ends each gets a
    writer (freeing a process that waits to open it), is removed (no process can open it
    again) and then loses the writer (a process that opened it reads an end of file):
    nothing is left waiting."""
    made: list[Path] = []
    yield made
    writers = []
    for fifo in made:
        with contextlib.suppress(OSError):
            writers.append(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        with contextlib.suppress(OSError):
            fifo.unlink()
    for writer in writers:
        os.close(writer)
