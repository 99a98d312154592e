"""The project trust store: `~/.rho/trusted_projects.toml`.

A repository's own files (its `.rho/config.toml`, later its context files) may not loosen
what the user set up until the user trusts them. Trust is recorded per file as the SHA-256 of
its bytes, so any later change to the file lapses it:

```toml
[[entries]]
root = "/home/me/proj"        # canonical project root
file = ".rho/config.toml"     # relative to the root
sha256 = "3a7bd3e2…"          # lower-hex SHA-256 of the file's bytes
```

The store is written atomically (a private temporary file renamed over it), as a regular
file of mode 0600 in a directory of mode 0700, and never through a symbolic link. A change is
a read-modify-write under the store's lock (`rho_kernel.security.file_lock`): the store is
read again while locked, so two `rho trust` runs at the same instant both keep their entries.
A store that cannot be read or parsed is reported through `warn` and counts as empty: it can
only ever withhold trust, never grant it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from rho_kernel.diagnostics import warn as warn_stderr
from rho_kernel.home import user_home
from rho_kernel.security.file_lock import locked_update
from rho_kernel.security.private_file import PrivateFileError, toml_string, write_private
from rho_kernel.security.regular_file import read_optional
from rho_kernel.tomlparse import TomlError, parse_toml

#: The store's file name inside `~/.rho`.
TRUST_STORE_NAME = "trusted_projects.toml"
#: The largest store read (an entry is about 200 bytes).
MAX_STORE_BYTES = 16 * 1024 * 1024

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_HEADER = (
    "# Project files whose settings rho applies in full; written by 'rho trust'.\n"
    "# An entry counts only while the file's SHA-256 still matches.\n"
)


class TrustError(Exception):
    """The trust store cannot be written, or a path cannot be recorded in it."""


@dataclass(frozen=True, slots=True)
class TrustEntry:
    """One trusted file: the canonical project `root`, the `file` relative to it, its hash."""

    root: str
    file: str
    sha256: str


def file_digest(data: bytes) -> str:
    """The lower-hex SHA-256 of `data`, as the store records it."""
    return hashlib.sha256(data).hexdigest()


def trust_store_path(home: Path | None = None) -> Path:
    """`<home>/.rho/trusted_projects.toml` (home as in `rho_kernel.home.user_home`)."""
    return user_home(home) / ".rho" / TRUST_STORE_NAME


def canonical_root(root: Path | str) -> str:
    """The form a project root is recorded in: its canonical absolute path."""
    return os.path.realpath(root)


def _check_relative(rel_file: str) -> str:
    parts = PurePosixPath(rel_file).parts
    if not rel_file or rel_file.startswith("/") or ".." in parts or "\\" in rel_file:
        raise ValueError(f"not a plain path relative to the project root: {rel_file!r}")
    return rel_file


class TrustStore:
    """The trusted project files, loaded from and saved to one TOML file."""

    def __init__(self, path: Path, entries: Iterable[TrustEntry] = ()) -> None:
        """A store at `path` holding `entries` (nothing is read or written here)."""
        self.path = path
        self._entries: list[TrustEntry] = list(entries)

    @classmethod
    def load(
        cls, home: Path | None = None, *, warn: Callable[[str], None] | None = None
    ) -> TrustStore:
        """The store of `home` (default: the user's).

        A missing store is empty; a malformed one is reported through `warn` (default:
        stderr) and counts as empty.
        """
        path = trust_store_path(home)
        try:
            entries = _parse(path)
        except _Malformed as exc:
            (warn or warn_stderr)(
                f"{path}: {exc}; the trust store is ignored, so no project counts as trusted"
            )
            entries = []
        return cls(path, entries)

    @property
    def entries(self) -> tuple[TrustEntry, ...]:
        """Every recorded entry, in file order."""
        return tuple(self._entries)

    def entries_for(self, root: Path | str) -> list[TrustEntry]:
        """The entries recorded for the project at `root`."""
        key = canonical_root(root)
        return [entry for entry in self._entries if entry.root == key]

    def is_trusted(self, root: Path | str, rel_file: str, data: bytes) -> bool:
        """Whether `rel_file` of the project at `root`, whose bytes are now `data`, is trusted."""
        key, digest = canonical_root(root), file_digest(data)
        return any(
            entry.root == key and entry.file == rel_file and entry.sha256 == digest
            for entry in self._entries
        )

    def trust(self, root: Path | str, rel_file: str, data: bytes) -> TrustEntry:
        """Record `rel_file` of `root` as trusted with the hash of `data`, and save.

        Replaces an earlier entry for the same file. Raises `TrustError` when the store
        cannot be written or the root cannot be represented in it, `ValueError` for a
        `rel_file` that is not a plain relative path.
        """
        entry = TrustEntry(canonical_root(root), _check_relative(rel_file), file_digest(data))

        def change(entries: list[TrustEntry]) -> list[TrustEntry]:
            kept = [e for e in entries if (e.root, e.file) != (entry.root, entry.file)]
            return [*kept, entry]

        self._update(change)
        return entry

    def revoke(self, root: Path | str) -> list[TrustEntry]:
        """Forget every entry of the project at `root` and save; returns what was removed."""
        key = canonical_root(root)
        removed: list[TrustEntry] = []

        def change(entries: list[TrustEntry]) -> list[TrustEntry] | None:
            removed.extend(entry for entry in entries if entry.root == key)
            return [entry for entry in entries if entry.root != key] if removed else None

        self._update(change)
        return removed

    def _update(self, change: Callable[[list[TrustEntry]], list[TrustEntry] | None]) -> None:
        """Apply `change` to the entries on disk and write the result, all under the store's
        lock (nothing is written when `change` returns None). A store that cannot be parsed
        is replaced, as when it was loaded: it counted as empty."""
        try:
            with locked_update(self.path):
                try:
                    current = _parse(self.path)
                except _Malformed:
                    current = []
                entries = change(current)
                if entries is None:
                    self._entries = current
                    return
                text = _HEADER + "".join(_render(entry) for entry in entries)
                write_private(self.path, text.encode("utf-8"))
        except PrivateFileError as exc:
            raise TrustError(str(exc)) from None
        self._entries = entries


# ── reading ─────────────────────────────────────────────────────────────────


class _Malformed(Exception):
    """The store exists but cannot be used; the message says why."""


def _parse(path: Path) -> list[TrustEntry]:
    try:
        raw = read_optional(path, limit=MAX_STORE_BYTES)
    except OSError as exc:
        raise _Malformed(f"cannot be read ({exc.strerror or exc})") from None
    if raw is None:
        return []
    try:
        table = parse_toml(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _Malformed(f"is not valid UTF-8 (byte {exc.start})") from None
    except TomlError as exc:
        raise _Malformed(str(exc)) from None
    items = table.get("entries", [])
    if not isinstance(items, list):
        raise _Malformed("'entries' must be an array of tables ([[entries]])")
    return [_entry(index, item) for index, item in enumerate(items)]


def _entry(index: int, item: Any) -> TrustEntry:
    if not isinstance(item, dict):
        raise _Malformed(f"entries[{index}] is not a table")
    values: dict[str, str] = {}
    for key in ("root", "file", "sha256"):
        value = item.get(key)
        if not isinstance(value, str) or not value:
            raise _Malformed(f"entries[{index}].{key} must be a non-empty string")
        values[key] = value
    if not _SHA256.match(values["sha256"]):
        raise _Malformed(f"entries[{index}].sha256 must be 64 lower-case hex digits")
    return TrustEntry(**values)


# ── writing ─────────────────────────────────────────────────────────────────


def _render(entry: TrustEntry) -> str:
    return (
        "\n[[entries]]\n"
        f"root = {toml_string(entry.root)}\n"
        f"file = {toml_string(entry.file)}\n"
        f"sha256 = {toml_string(entry.sha256)}\n"
    )


__all__ = [
    "TRUST_STORE_NAME",
    "TrustEntry",
    "TrustStore",
    "canonical_root",
    "file_digest",
    "trust_store_path",
]
