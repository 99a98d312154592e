"""Parse files in the background once they are read, for the syntax check of a later edit.

The model reads a file before it edits it, and thinks in between; parsing the file then,
in one background thread, puts its tree in `rho_tools_fs.syntax.CACHE`, so the first edit
only re-parses the edited region instead of parsing the whole file while the user waits.

Bounded: only files with a grammar and at most `MAX_BYTES` are parsed, by one worker
thread; at most `MAX_PENDING` files wait (the most recently read are parsed first and the
oldest are dropped). The parse lets other threads run every few hundred steps
(`syntax.parse_politely`), so it never holds up the event loop for long; an edit wanting
the tree being parsed waits for it rather than parsing again (`TreeCache.reserve`).
tree-sitter is imported by the worker, never before a file is read.
"""

from __future__ import annotations

import atexit
import threading
from collections import OrderedDict

from rho_kernel.diagnostics import warn
from rho_tools_fs import syntax
from rho_tools_fs.languages import language_for

#: Files larger than this are not parsed ahead (bytes).
MAX_BYTES = 2 * 1024 * 1024
#: Files waiting for the worker at most.
MAX_PENDING = 4
#: The worker waits this long (seconds) before it starts, so that the result of the read
#: that woke it is on its way first.
START_DELAY = 0.1


class Preparser:
    """One background worker that parses recently read files into a `TreeCache`."""

    def __init__(
        self,
        cache: syntax.TreeCache | None = None,
        max_bytes: int = MAX_BYTES,
        max_pending: int = MAX_PENDING,
        start_delay: float = START_DELAY,
    ) -> None:
        self.cache = cache if cache is not None else syntax.CACHE
        self.max_bytes = max_bytes
        self.max_pending = max_pending
        self.start_delay = start_delay
        self._wake = threading.Event()  # set to end the start delay early (stop)
        self._pending: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._stopping = False

    def submit(self, path: str, data: bytes) -> bool:
        """Queue a parse of `data`, the content of the file `path`; False if it is not wanted.

        Cheap and non-blocking: the caller (a read) is not delayed by the parse.
        """
        language = language_for(path)
        if language is None or not data or len(data) > min(self.max_bytes, syntax.MAX_SYNTAX_BYTES):
            return False
        with self._lock:
            if self._stopping:
                return False
            self._pending.pop(path, None)  # a re-read replaces the older content
            self._pending[path] = (language, data)
            while len(self._pending) > self.max_pending:
                self._pending.popitem(last=False)
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="rho-preparse", daemon=True)
                self._worker.start()
        return True

    def _next(self) -> tuple[str, str, bytes] | None:
        with self._lock:
            if not self._pending or self._stopping:
                self._worker = None
                return None
            path, (language, data) = self._pending.popitem(last=True)
            return path, language, data

    def _work(self) -> None:
        self._wake.wait(self.start_delay)
        while (job := self._next()) is not None:
            path, language, data = job
            key = self.cache.key(language, data)
            if not self.cache.reserve(key):
                continue  # already cached, or an edit is parsing it
            tree = None
            try:
                tree = syntax.parse_politely(language, data, lambda: self._stopping)
            except Exception as exc:  # a grammar problem: the edit reports it if it recurs
                warn(f"background parse of {path} ({language}) failed: {exc}")
            finally:
                self.cache.release(key, tree)

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until no parse is queued or running (for tests and benchmarks)."""
        with self._lock:
            worker = self._worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    def stop(self) -> None:
        """Drop queued work and abandon the running parse (at exit)."""
        with self._lock:
            self._stopping = True
            self._pending.clear()
            self._wake.set()
            worker = self._worker
        if worker is not None:
            worker.join(1.0)


PREPARSER = Preparser()
atexit.register(PREPARSER.stop)


def preparse(path: str, data: bytes) -> None:
    """Parse the file `path` holding `data` in the background if it has a grammar."""
    PREPARSER.submit(path, data)


__all__ = ["MAX_BYTES", "MAX_PENDING", "PREPARSER", "Preparser", "preparse"]
