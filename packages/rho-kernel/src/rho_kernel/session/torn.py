"""A session file's unfinished last line (a write torn by a crash), moved out of the way.

rho writes each line with its newline in one write, so a final fragment without a newline
that is not even complete JSON was never a whole line. Appending after it would leave an
invalid line in the middle of the file forever, which other readers of the format treat as
fatal. Before the next line is written, its bytes are moved to a side file next to the
session, `<session>.jsonl.torn-<unix time>` (mode 0600; `-2`, `-3` … added when that name is
taken), and the session is truncated to its last complete line. The side file is written
and synced before the session is truncated, so a crash at any point loses nothing (at worst
the fragment is in both files, and the next resume moves it again). A final line without a
newline that is complete JSON is a whole line: it stays, and the next line starts on a new
line after it. Complete lines rho cannot read are never moved.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rho_kernel.session.private import create_private_file

SIDE_SUFFIX = ".torn-"


@dataclass(frozen=True, slots=True)
class TornTail:
    """The unfinished last line of a session file as it was read."""

    offset: int
    """Where the fragment starts: the end of the file's last complete line."""
    fragment: bytes
    size: int
    """The file's size when it was read (the fragment is its end)."""


class TailChanged(OSError):
    """The session file is no longer as it was read: the fragment is not moved."""


def is_torn(line: bytes) -> bool:
    """Whether an unterminated last line is an unfinished write: not blank, and not a
    complete JSON value."""
    if not line.strip():
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return True
    return False


def torn_tail(data: bytes) -> TornTail | None:
    """The unfinished last line of the file content `data`, or None (the file ends with a
    newline, its last line is whole, or it holds no newline at all: only a header)."""
    end = data.rfind(b"\n")
    if end < 0:
        return None
    fragment = data[end + 1 :]
    if not is_torn(fragment):
        return None
    return TornTail(offset=end + 1, fragment=fragment, size=len(data))


def move_aside(path: Path, file: BinaryIO, tail: TornTail) -> Path:
    """Move `tail` out of the session file `path`, open for appends as `file` (whose lock
    the caller holds): write it to a new side file and sync it, then truncate the session
    to its last complete line. Returns the side file; raises OSError (`TailChanged` when
    the file is not the size it was read at), leaving the session as it was."""
    fd = file.fileno()
    if os.fstat(fd).st_size != tail.size:
        raise TailChanged(f"{path} changed since it was read")
    side = _write_side_file(path, tail.fragment)
    os.ftruncate(fd, tail.offset)
    os.fsync(fd)
    return side


def _write_side_file(path: Path, fragment: bytes) -> Path:
    stamp = f"{path.name}{SIDE_SUFFIX}{int(time.time())}"
    for attempt in range(1, 1000):
        side = path.with_name(stamp if attempt == 1 else f"{stamp}-{attempt}")
        try:
            out = create_private_file(side)
        except FileExistsError:
            continue
        with out:
            out.write(fragment)
            out.flush()
            os.fsync(out.fileno())
        _sync_folder(path.parent)
        return side
    raise FileExistsError(f"no free side file name next to {path}")


def _sync_folder(folder: Path) -> None:
    """Make the side file's name durable (not possible on every platform)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


__all__ = ["SIDE_SUFFIX", "TailChanged", "TornTail", "is_torn", "move_aside", "torn_tail"]
