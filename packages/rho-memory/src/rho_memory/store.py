"""The knowledge-base file: opening `memory.db`, its schema and the migrations that build it.

The schema is versioned with `PRAGMA user_version`: version N means the first N entries of
`MIGRATIONS` have been applied. Opening a file applies the missing ones in place, each in
its own transaction, so an old file upgrades and a half-applied migration never sticks.

Documents live in `documents`; `documents_fts` is an external-content FTS5 index over the
title, body and tags of the live (not soft-deleted) documents, kept in sync by triggers, so a
search needs no look at `documents` to leave deleted ones out. `sources` records the files
ingested from the project (size, mtime, hash) so that re-ingesting reads only the changed
ones. The FTS rowid is `documents.seq`, an `INTEGER PRIMARY KEY`, because an implicit rowid
may be renumbered by VACUUM, which would silently detach the index from its rows.

This module imports `sqlite3`; import it lazily (never on rho's startup path).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from rho_kernel import NotRegularFileError, check_regular, open_regular

#: How long a writer waits for another connection's write lock before giving up.
BUSY_TIMEOUT_MS = 5000

#: Page cache per connection, in KiB.
CACHE_KIB = 32 * 1024

#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"

_V1 = """
CREATE TABLE documents (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    content_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
);
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, body, tags, content='documents', content_rowid='seq'
);
CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts(rowid, title, body, tags)
    VALUES (new.seq, new.title, new.body, new.tags);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, body, tags)
    VALUES ('delete', old.seq, old.title, old.body, old.tags);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title, body, tags ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, body, tags)
    VALUES ('delete', old.seq, old.title, old.body, old.tags);
    INSERT INTO documents_fts(rowid, title, body, tags)
    VALUES (new.seq, new.title, new.body, new.tags);
END;
"""

_V2 = """
ALTER TABLE documents ADD COLUMN source TEXT;
CREATE INDEX documents_live_updated ON documents(deleted_at, updated_at);
"""

# Files ingested into the knowledge base, keyed by their path relative to the project
# root: what they were when last read, to re-read only the changed ones.
_V3 = """
CREATE TABLE sources (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    chunks INTEGER NOT NULL,
    ingested_at TEXT NOT NULL
);
CREATE INDEX documents_source ON documents(source);
"""

#: The schema, one script per version (index 0 builds version 1). Append, never edit.
# The index holds live documents only: soft delete takes a document out, restore puts it back.
# One update trigger does both steps in order (old tokens out before new ones in).
_V4 = """
DROP TRIGGER documents_ai;
DROP TRIGGER documents_ad;
DROP TRIGGER documents_au;
CREATE TRIGGER documents_ai AFTER INSERT ON documents WHEN new.deleted_at IS NULL BEGIN
    INSERT INTO documents_fts(rowid, title, body, tags)
    VALUES (new.seq, new.title, new.body, new.tags);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents WHEN old.deleted_at IS NULL BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, body, tags)
    VALUES ('delete', old.seq, old.title, old.body, old.tags);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title, body, tags, deleted_at ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, body, tags)
    SELECT 'delete', old.seq, old.title, old.body, old.tags WHERE old.deleted_at IS NULL;
    INSERT INTO documents_fts(rowid, title, body, tags)
    SELECT new.seq, new.title, new.body, new.tags WHERE new.deleted_at IS NULL;
END;
INSERT INTO documents_fts(documents_fts, rowid, title, body, tags)
SELECT 'delete', seq, title, body, tags FROM documents WHERE deleted_at IS NOT NULL;
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4)

#: The schema version this code reads and writes.
SCHEMA_VERSION = len(MIGRATIONS)


class MemoryStoreError(Exception):
    """The knowledge base cannot be used: the file is not a (readable) memory database,
    was written by a newer schema, or an operation was refused. The message names the file.
    """


class DocumentNotFoundError(MemoryStoreError):
    """No live document has the given id."""


class DuplicateContentError(MemoryStoreError):
    """Another document already holds exactly this body (`existing_id` names it)."""

    def __init__(self, message: str, existing_id: str) -> None:
        super().__init__(message)
        self.existing_id = existing_id


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating it and its directory if needed) the memory database at `path`,
    in WAL mode with a busy timeout, migrated to `SCHEMA_VERSION`.

    Raises `MemoryStoreError` naming the file if it is not a SQLite database, is corrupt,
    cannot be opened, or has a newer schema than this code knows.
    """
    _refuse_links(path)
    _refuse_special_files(path)
    _check_header(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise MemoryStoreError(f"{path}: cannot open the memory database: {exc}") from exc
    try:
        _harden(conn)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _while_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        conn.execute("PRAGMA synchronous = NORMAL")
        # FTS5 merges index segments in memory; the 2 MB default makes big batches thrash.
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        _while_busy(lambda: migrate(conn, path))
        check_schema(conn, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise MemoryStoreError(f"{path}: not a usable memory database: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _while_busy(step: Callable[[], object]) -> None:
    """Run `step`, again while the database is locked, for up to the busy timeout.

    SQLite does not call its busy handler for every lock it meets while a new file is set
    up (switching to WAL, the first migration), so connections racing on a new file can get
    "database is locked" at once; they wait their turn here instead.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            message = str(exc)
            if "locked" not in message and "busy" not in message:
                raise
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


#: The files SQLite keeps next to the database (a link among them would be written through).
SIDECAR_SUFFIXES = ("", "-wal", "-shm", "-journal")


def _refuse_links(path: Path) -> None:
    """Refuse a database (or one of its sidecar files) that is a symbolic link.

    The file can arrive with a cloned repository: a link would make SQLite read a file of
    the user's (another program's database) as memory, migrate it, or write its journal
    through the link into any file the user can write.
    """
    for suffix in SIDECAR_SUFFIXES:
        candidate = path.with_name(path.name + suffix)
        if candidate.is_symlink():
            raise MemoryStoreError(
                f"{candidate}: is a symbolic link; refusing to use it as memory "
                "(remove the link to start a new knowledge base)"
            )


def _refuse_special_files(path: Path) -> None:
    """Refuse a database (or a sidecar file) that is a FIFO, device, socket or directory.

    SQLite opens them by path and would wait forever on a FIFO. A file swapped in between
    this check and SQLite's own open is not caught: `.rho` is read-only to commands, so that
    takes a process outside the sandbox, or a command that created `.rho` itself.
    """
    for suffix in SIDECAR_SUFFIXES:
        candidate = path.with_name(path.name + suffix)
        try:
            check_regular(candidate, follow_symlinks=False)
        except OSError as exc:
            raise MemoryStoreError(
                f"{candidate}: {exc.strerror or exc}; refusing to use it as memory"
            ) from None


def _harden(conn: sqlite3.Connection) -> None:
    """Defensive mode: plain SQL cannot corrupt the file or rewrite its schema."""
    defensive = getattr(sqlite3, "SQLITE_DBCONFIG_DEFENSIVE", None)
    setconfig = getattr(conn, "setconfig", None)
    if defensive is not None and setconfig is not None:  # Python 3.12+
        setconfig(defensive, True)


@cache
def _known_schema() -> frozenset[tuple[str, str, str | None]]:
    """Every schema object (type, name, SQL) of a file migrated to `SCHEMA_VERSION`."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn, Path(":memory:"))
        return _schema_objects(conn)
    finally:
        conn.close()


def _schema_objects(conn: sqlite3.Connection) -> frozenset[tuple[str, str, str | None]]:
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    return frozenset((str(kind), str(name), sql) for kind, name, sql in rows)


def check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file whose schema is not exactly rho's: a trigger or view of its own (the
    file may come with a cloned repository) would run with every read or write."""
    unknown = _schema_objects(conn) - _known_schema()
    if unknown:
        kind, name, _ = sorted(unknown)[0]
        raise MemoryStoreError(
            f"{path}: unexpected {kind} '{name}' in the memory database; refusing to use it "
            f"(rho's schema has no such object; {len(unknown)} unexpected in all)"
        )


def _check_header(path: Path) -> None:
    """Refuse an existing non-empty file that does not start like a SQLite database,
    before SQLite gets a chance to write anything into it."""
    try:
        with open_regular(path, follow_symlinks=False) as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except NotRegularFileError as exc:
        raise MemoryStoreError(f"{path}: {exc.strerror}; refusing to use it as memory") from None
    except OSError as exc:
        raise MemoryStoreError(f"{path}: cannot read the memory database: {exc}") from exc
    if head and head != SQLITE_HEADER:
        raise MemoryStoreError(f"{path}: not a SQLite database (refusing to use it as memory)")


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the file (`PRAGMA user_version`)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, path: Path, target: int = SCHEMA_VERSION) -> None:
    """Apply the migrations between the file's version and `target`, one transaction each.

    A file with a newer version than this code knows raises `MemoryStoreError`.
    """
    current = schema_version(conn)
    if current > SCHEMA_VERSION:
        raise MemoryStoreError(
            f"{path}: memory schema version {current} is newer than this rho supports "
            f"({SCHEMA_VERSION})"
        )
    for version in range(current, target):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another connection may have migrated while this one waited for the lock.
            if schema_version(conn) == version:
                for statement in _statements(MIGRATIONS[version]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _statements(script: str) -> list[str]:
    """Split a migration script into whole statements (trigger bodies hold semicolons)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements


__all__ = [
    "BUSY_TIMEOUT_MS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "DocumentNotFoundError",
    "DuplicateContentError",
    "MemoryStoreError",
    "check_schema",
    "connect",
    "migrate",
    "schema_version",
]
