"""The hash seeds of many lines at once, with a bounded cache for re-reads.

A line's seed is the low 16 bits of its fold (`rho_tools_fs.fold`) if it has an
alphanumeric character, else its line number (see `rho_tools_fs.hashline.line_hash`).
Source files repeat many lines, so each distinct line is looked at once. What a distinct
line comes to (its fold, or "seeded by number") is kept in `SEEDS`, a bounded cache keyed
by the line's bytes, so a file read again after an edit only folds its changed lines.
"""

from __future__ import annotations

import operator
import re
import threading
from collections.abc import Collection
from itertools import compress

from rho_tools_fs.fold import fold16_table

#: Distinct lines remembered at most (all forgotten at once when full).
CACHE_LINES = 200_000
#: Bytes of distinct lines remembered at most (all forgotten at once when full).
CACHE_BYTES = 16 * 1024 * 1024

_ALNUM = re.compile(r"[^\W_]")  # `\w` is `str.isalnum()` plus `_`
_ASCII_ALNUM = bytes(b for b in range(128) if chr(b).isalnum())
# Every ASCII byte that is neither alphanumeric nor the line break.
_ASCII_OTHER = bytes(b for b in range(128) if not chr(b).isalnum() and b != 0x0A)


class SeedCache:
    """Distinct line bytes → fold (low 16 bits), or None for a line seeded by its number.

    Entries are only ever added to a table; when it is full it is replaced by a new one, so
    a reader holding the old table still finds every entry it put there.
    """

    def __init__(self, lines: int = CACHE_LINES, size_bytes: int = CACHE_BYTES) -> None:
        self.lines = lines
        self.size_bytes = size_bytes
        self.table: dict[bytes, int | None] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def lookup(self, blobs: Collection[bytes]) -> dict[bytes, int | None]:
        """A table holding every line of `blobs` (new ones are computed and remembered)."""
        table = self.table
        distinct = set(blobs)
        missing = distinct.difference(table)
        if not missing:
            return table
        found = _compute(missing)
        self._remember(found)
        if len(missing) < len(distinct):
            hits = distinct.difference(missing)
            found.update(zip(hits, map(table.__getitem__, hits), strict=True))
        return found

    def _remember(self, found: dict[bytes, int | None]) -> None:
        size = sum(map(len, found))
        if len(found) > self.lines or size > self.size_bytes:
            return
        with self._lock:
            if len(self.table) + len(found) > self.lines or self._bytes + size > self.size_bytes:
                self.table = {}
                self._bytes = 0
            self.table.update(found)
            self._bytes += size

    def clear(self) -> None:
        """Forget every line."""
        with self._lock:
            self.table = {}
            self._bytes = 0

    def __len__(self) -> int:
        return len(self.table)


def _informative(distinct: list[bytes]) -> list[bool]:
    """For each of `distinct` (UTF-8 lines without `\\n`): does it have an alphanumeric char?"""
    joined = b"\n".join(distinct)
    kept = joined.translate(None, _ASCII_OTHER).split(b"\n")  # alphanumerics and non-ASCII
    flags = list(map(bool, kept))
    if joined.isascii():
        return flags
    # Lines whose only candidates are non-ASCII bytes need the Unicode check.
    non_ascii = joined.translate(None, _ASCII_OTHER + _ASCII_ALNUM).split(b"\n")
    only_non_ascii = map(operator.eq, map(len, kept), map(len, non_ascii))
    for index in compress(range(len(kept)), map(operator.and_, only_non_ascii, flags)):
        text = distinct[index].decode("utf-8", "surrogatepass")
        flags[index] = _ALNUM.search(text) is not None
    return flags


def _compute(missing: set[bytes]) -> dict[bytes, int | None]:
    """The cache entries of the lines in `missing`."""
    distinct = list(missing)
    flags = _informative(distinct)
    found: dict[bytes, int | None] = dict.fromkeys(distinct)
    found.update(fold16_table(compress(distinct, flags)))
    return found


SEEDS = SeedCache()


def line_seeds(blobs: list[bytes], first_line_no: int = 1, cache: SeedCache = SEEDS) -> list[int]:
    """The 16-bit hash seed of each line of `blobs` (UTF-8, no `\\n`), numbered from `first_line_no`."""
    seeds = list(map(cache.lookup(blobs).__getitem__, blobs))
    index = -1
    try:
        while True:
            index = seeds.index(None, index + 1)
            seeds[index] = (first_line_no + index) & 0xFFFF
    except ValueError:
        pass
    return seeds  # type: ignore[return-value]


__all__ = ["CACHE_BYTES", "CACHE_LINES", "SEEDS", "SeedCache", "line_seeds"]
