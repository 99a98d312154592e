"""The project's private key files, learned before a tool can show a slice of one.

The redactor learns a key when it meets its block (`rho_kernel.security.known_keys`), but
`cut -c1-20 key.pem` shows no block. So the project is scanned for files that hold a private
key's armour (or a PuTTY key's private lines), and each key found is learned: the agent loop
starts the scan when a prompt starts (`ProjectKeys.start`) and waits for it before a tool
runs (`ProjectKeys.ready`). After a call that may have changed files (`changed`), the next
scan reads only the files changed since the last one began; in a large project (a scan of
`SLOW_SCAN` seconds or more) it waits until `RESCAN_SPACING` times that has passed.

The scan runs in a thread and is bounded: `MAX_ENTRIES` directory entries, files of at most
`MAX_FILE_BYTES`, `MAX_TOTAL_BYTES` read in all, `MAX_SECONDS`. It follows no symbolic link,
opens regular files only (without waiting on a FIFO swapped in), and skips `.git`, `.rho`
and the folders dependencies and builds fill (`SKIPPED_DIRS`). It reads only to learn: no
file's text is kept or shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

#: Directory entries visited at most, per scan.
MAX_ENTRIES = 100_000
#: Larger files are not read (a key file is a few KiB).
MAX_FILE_BYTES = 256 * 1024
#: Bytes read at most, per scan.
MAX_TOTAL_BYTES = 64 << 20
#: A scan stops after this long (a slow network disk).
MAX_SECONDS = 10.0
#: A scan this long (seconds) makes the next wait `RESCAN_SPACING` times as long after it,
#: so that a large project's scans take at most about a tenth of the time.
SLOW_SCAN = 0.1
RESCAN_SPACING = 10
#: Folders never entered: rho's protected ones, and what dependencies and builds fill.
SKIPPED_DIRS = frozenset(
    {
        ".git", ".rho", "node_modules", ".venv", "venv", "__pycache__", "target", ".tox",
        ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".gradle", ".cargo",
    }
)  # fmt: skip
#: How much older than the last scan a file's change time may be and still be read again
#: (file systems keep times coarsely).
_SLACK_NS = 2_000_000_000

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class ProjectKeys:
    """The scan of one project's files for private keys (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        """The scan of the project at `root` (nothing runs until `start`)."""
        self.root = root
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._scanned_since: int | None = None  # when the last finished scan began (ns)
        self._stale = True
        self._took = 0.0  # how long the last scan ran, and when it ended (monotonic seconds)
        self._ended = 0.0
        #: Files in which a key was found by the last scans (for tests and diagnostics).
        self.found: set[str] = set()

    def start(self) -> None:
        """Start a scan unless one is running, nothing changed since the last, or the last
        was long and ended less than `RESCAN_SPACING` times its length ago."""
        with self._lock:
            if (self._thread is not None and self._thread.is_alive()) or not self._stale:
                return
            if (
                self._took >= SLOW_SCAN
                and time.monotonic() - self._ended < RESCAN_SPACING * self._took
            ):
                return  # a large project: files changed since are read by a later scan
            self._stale = False
            since = self._scanned_since
            thread = threading.Thread(
                target=self._scan, args=(since,), name="rho-key-scan", daemon=True
            )
            self._thread = thread
        thread.start()

    async def ready(self) -> None:
        """Start a scan if one is due, and wait (without blocking the event loop) until no
        scan is running."""
        self.start()
        thread = self._thread
        if thread is not None and thread.is_alive():
            await asyncio.to_thread(thread.join)

    def wait(self) -> None:
        """Like `ready`, blocking (for threads and tests)."""
        self.start()
        thread = self._thread
        if thread is not None:
            thread.join()

    def changed(self) -> None:
        """Files may have changed: the next `start` scans those changed since the last."""
        with self._lock:
            self._stale = True

    def _scan(self, since: int | None) -> None:
        began, started = time.time_ns(), time.monotonic()
        with contextlib.suppress(Exception):  # best effort: the redactor works without it
            self._read_all(since)
        with self._lock:
            self._scanned_since = began
            self._ended = time.monotonic()
            self._took = self._ended - started

    def _read_all(self, since: int | None) -> None:
        deadline = time.monotonic() + MAX_SECONDS
        budget = MAX_TOTAL_BYTES
        for path, size in _files(self.root, since, deadline):
            if size > budget:
                break
            data = _read(path)
            if data is None:
                continue
            budget -= len(data)
            if _learn(data):
                self.found.add(os.path.relpath(path, self.root))


def _files(root: Path, since: int | None, deadline: float) -> Iterator[tuple[str, int]]:
    """The regular files under `root` worth reading: (path, size), at most `MAX_ENTRIES`
    entries visited; with `since`, only those changed since then."""
    stack = [str(root)]
    visited = 0
    while stack and visited < MAX_ENTRIES and time.monotonic() < deadline:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(islice(listing, MAX_ENTRIES - visited))
        except OSError:
            continue
        for entry in entries:
            visited += 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        stack.append(entry.path)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not 32 <= info.st_size <= MAX_FILE_BYTES:
                continue
            if since is not None and max(info.st_mtime_ns, info.st_ctime_ns) < since - _SLACK_NS:
                continue
            yield entry.path, info.st_size


def _read(path: str) -> bytes | None:
    """The bytes of the regular file at `path` (None: not one, or unreadable)."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read(MAX_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _learn(data: bytes) -> bool:
    """Learn the private keys `data` holds; whether it held one."""
    from rho_kernel.security.key_blocks import KeyBlockLines
    from rho_kernel.security.known_keys import learn_lines

    found = False
    if b"PRIVATE KEY" in data and b"-----BEGIN" in data:
        found = bool(KeyBlockLines.of(data))  # learns every block it finds
    if b"Private-Lines:" in data:  # PuTTY: `Private-Lines: N`, then N lines of base64
        lines = data.decode("utf-8", "replace").split("\n")
        for index, line in enumerate(lines):
            count = line.partition("Private-Lines:")[2].strip()
            if line.startswith("Private-Lines:") and count.isdigit():
                learn_lines(lines[index + 1 : index + 1 + int(count)], header=False)
                found = True
    return found


_projects: dict[str, ProjectKeys] = {}
_projects_lock = threading.Lock()


def project_keys(root: Path) -> ProjectKeys:
    """The scan of the project at `root`, one per root for the life of the process."""
    key = str(root)
    with _projects_lock:
        found = _projects.get(key)
        if found is None:
            found = _projects[key] = ProjectKeys(root)
        return found


__all__ = [
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "SKIPPED_DIRS",
    "ProjectKeys",
    "project_keys",
]
