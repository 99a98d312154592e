"""Freeing a `git` that waits to open a FIFO of the project.

git reads every `.gitignore` and `.gitattributes` it meets with a plain `open`, which for a
FIFO (named pipe) waits until something opens the other end: a command that made
`mkfifo .gitignore` would hang every snapshot. A FIFO cannot be committed, so it is never
in a cloned repository; only a local process makes one.

On Linux a process waiting like this is asleep in the kernel's `wait_for_partner`, and its
`/proc/PID/syscall` holds the `openat` arguments. `release_fifo` reads the path from the
process's memory (git is rho's own child), checks that it names a FIFO inside the work
tree, and opens and closes the FIFO's writing end: git's `open` returns and it reads an
empty file, as if the FIFO were an empty `.gitignore`. Elsewhere, or when that cannot be
done, it answers None and the caller stops git.
"""

from __future__ import annotations

import os
import platform
import stat
from pathlib import Path

#: The `openat` system call's number, by machine.
_OPENAT = {"x86_64": 257, "aarch64": 56, "arm64": 56}
#: The `open` system call's number (x86_64 only; the path is its first argument).
_OPEN = {"x86_64": 2}
_AT_FDCWD = -100
_WAITING_FOR_WRITER = "wait_for_partner"


def release_fifo(pid: int, work_tree: Path) -> Path | None:
    """If any thread of process `pid` waits to open a FIFO inside `work_tree` for reading,
    give it an end of file and return the FIFO's path; otherwise None."""
    for thread in _threads(pid):
        if _read(thread / "wchan") != _WAITING_FOR_WRITER:
            continue
        path = _opened_path(pid, thread)
        if path is not None and _inside(path, work_tree) and _give_end_of_file(path):
            return path
    return None


def _threads(pid: int) -> list[Path]:
    try:
        return list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []


def _opened_path(pid: int, thread: Path) -> Path | None:
    """The path the thread is opening, from its system call's arguments and its memory."""
    fields = _read(thread / "syscall").split()
    machine = platform.machine()
    try:
        number = int(fields[0])
        if number == _OPENAT.get(machine):
            directory_fd, pointer = _signed(int(fields[1], 16)), int(fields[2], 16)
        elif number == _OPEN.get(machine):
            directory_fd, pointer = _AT_FDCWD, int(fields[1], 16)
        else:
            return None
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
            memory.seek(pointer)
            raw = memory.read(4096).split(b"\0", 1)[0]
        relative = os.fsdecode(raw)
        if os.path.isabs(relative):
            return Path(relative)
        base = "cwd" if directory_fd == _AT_FDCWD else f"fd/{directory_fd}"
        return Path(os.readlink(f"/proc/{pid}/{base}")) / relative
    except (IndexError, ValueError, OSError):
        return None


def _inside(path: Path, work_tree: Path) -> bool:
    """Whether `path` is inside `work_tree` once every link on the way is followed (so a
    folder linked from outside never gets its FIFOs opened)."""
    return Path(work_tree).resolve() in Path(os.path.realpath(path)).parents


def _give_end_of_file(path: Path) -> bool:
    """Open the FIFO at `path` for writing without waiting and close it at once."""
    try:
        if not stat.S_ISFIFO(os.lstat(path).st_mode):
            return False
        flags = os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(path, flags)
    except OSError:
        return False
    try:
        return stat.S_ISFIFO(os.fstat(descriptor).st_mode)
    finally:
        os.close(descriptor)


def _signed(value: int) -> int:
    """A 32-bit file descriptor argument as the signed number it is."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


__all__ = ["release_fifo"]
