"""A short on-disk cache of crates.io API answers: one private JSON file per URL.

`~/.cache/rho/crates-io/` (under `$XDG_CACHE_HOME` when set), files named by the sha256 of
the URL, each holding `{"url", "fetched_at", "body"}`. An entry is used for 10 minutes; an
unreadable, corrupt, foreign or future-dated entry is ignored (and replaced on the next
fetch). A cache that cannot be written is not an error: the answer is simply not kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from rho_kernel import open_regular, user_home
from rho_kernel.security import PrivateFileError, write_private

TTL_SECS = 600.0
#: A cache file larger than this is not read (the API body is capped at 2 MiB).
MAX_ENTRY_BYTES = 3 * 1024 * 1024


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/rho/crates-io` (an absolute XDG path only), else `~/.cache/rho/crates-io`."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else user_home() / ".cache"
    return base / "rho" / "crates-io"


class ResponseCache:
    """Decoded JSON answers by URL, kept in `directory` for `ttl` seconds."""

    def __init__(self, directory: Path, ttl: float = TTL_SECS) -> None:
        self.directory = directory
        self.ttl = ttl

    def path(self, url: str) -> Path:
        """The file holding `url`'s answer."""
        return self.directory / f"{hashlib.sha256(url.encode('utf-8')).hexdigest()}.json"

    def get(self, url: str, now: float | None = None) -> Any | None:
        """The cached body for `url` if fresh, else None (missing, stale or corrupt)."""
        now = time.time() if now is None else now
        try:
            with open_regular(self.path(url)) as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
            entry = json.loads(raw) if len(raw) <= MAX_ENTRY_BYTES else None
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(entry, dict) or entry.get("url") != url or "body" not in entry:
            return None
        fetched = entry.get("fetched_at")
        if not isinstance(fetched, (int, float)) or not (0 <= now - fetched < self.ttl):
            return None
        return entry["body"]

    def put(self, url: str, body: Any, now: float | None = None) -> None:
        """Keep `body` as `url`'s answer (0600, atomically); failures are ignored."""
        entry = {"url": url, "fetched_at": time.time() if now is None else now, "body": body}
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "replace")
        with contextlib.suppress(PrivateFileError, OSError):
            write_private(self.path(url), data)


__all__ = ["MAX_ENTRY_BYTES", "TTL_SECS", "ResponseCache", "default_cache_dir"]
