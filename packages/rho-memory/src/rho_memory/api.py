"""`Memory`: the project knowledge base (documents with full-text search) over `memory.db`.

Import lazily: this module pulls in `sqlite3`.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rho_kernel import scrub_surrogates
from rho_memory.store import (
    DocumentNotFoundError,
    DuplicateContentError,
    MemoryStoreError,
    connect,
    schema_version,
)

#: Markers around the matched terms in a `Hit.snippet`.
HIGHLIGHT = ("**", "**")

#: bm25 column weights (title, body, tags): a match in a title counts most.
_WEIGHTS = "10.0, 1.0, 5.0"

_COLUMNS = "id, title, body, tags, source, content_hash, created_at, updated_at, deleted_at"

_PREFIXED = ", ".join(f"d.{column}" for column in _COLUMNS.split(", "))

#: A document carries this tag (exactly; tags are a JSON array).
_TAG_CLAUSE = " AND EXISTS (SELECT 1 FROM json_each(d.tags) WHERE json_each.value = ?)"

_WORD = re.compile(r"\w+")

#: Values per `IN (...)` list (well under SQLite's bound-parameter limit).
_IN_CHUNK = 500


@dataclass(frozen=True)
class Document:
    """One stored document. `deleted_at` is set while it is soft-deleted."""

    id: str
    title: str
    body: str
    tags: tuple[str, ...]
    source: str | None
    content_hash: str
    created_at: str
    updated_at: str
    deleted_at: str | None = None


@dataclass(frozen=True)
class Hit:
    """A search result: the document, its bm25 score (lower is better) and a snippet
    of the best-matching column with the matched terms between `HIGHLIGHT` markers."""

    document: Document
    score: float
    snippet: str


@dataclass(frozen=True)
class Stats:
    """Counts and size of a knowledge base."""

    documents: int
    deleted: int
    bytes: int
    schema_version: int


@dataclass(frozen=True)
class Source:
    """A file ingested into the knowledge base, as it was when last read.

    `path` is relative to the project root with `/` separators; `content_hash` is the
    sha256 hex digest of its bytes; `chunks` how many documents it produced.
    """

    path: str
    size: int
    mtime_ns: int
    content_hash: str
    chunks: int
    ingested_at: str


@dataclass(frozen=True)
class Draft:
    """A document to store with `Memory.create_many`."""

    title: str
    body: str
    tags: tuple[str, ...] = ()
    source: str | None = None


@dataclass(frozen=True)
class _Prepared:
    """A draft cleaned (surrogates scrubbed, tags normalised) and hashed."""

    title: str
    body: str
    tags: list[str]
    source: str | None
    digest: str

    @classmethod
    def of(cls, draft: Draft) -> _Prepared:
        body = _clean(draft.body)
        source = None if draft.source is None else _clean(draft.source)
        return cls(_clean(draft.title), body, _tags(draft.tags), source, content_hash(body))

    def document(self, id: str, now: str) -> Document:
        return Document(
            id, self.title, self.body, tuple(self.tags), self.source, self.digest, now, now
        )

    def row(self, id: str, now: str) -> tuple[Any, ...]:
        tags = json.dumps(self.tags)
        return (id, self.title, self.body, tags, self.source, self.digest, now, now)


def content_hash(body: str) -> str:
    """The sha256 hex digest of a body's UTF-8 bytes (the dedup key)."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def fallback_query(text: str) -> str:
    """`text` as a safe FTS5 query: each word quoted as a phrase, all of them required."""
    return " ".join(f'"{word}"' for word in _WORD.findall(text))


class Memory:
    """A knowledge base file. Open with `Memory.open(path)`; close with `close()` or `with`.

    Every write is its own transaction unless made inside `batch()`. Safe to share between
    threads (calls are serialised); several processes may use one file (WAL, busy timeout).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        """Wrap an open, migrated connection (use `Memory.open`)."""
        self.path = path
        self._conn = conn
        self._lock = threading.RLock()

    def _query(self, sql: str, params: Iterable[Any]) -> builtins.list[dict[str, Any]]:
        cursor = self._conn.execute(sql, tuple(params))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    @classmethod
    def open(cls, path: Path | str) -> Memory:
        """Open the memory database at `path`, creating it and its directory if needed."""
        path = Path(path)
        return cls(connect(path), path)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Serialise a call and turn SQLite failures into `MemoryStoreError` naming the file."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise MemoryStoreError(f"{self.path}: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One atomic write: its own transaction, or part of the open `batch()`.

        Every write changes rows in a single statement (reads before it only decide which),
        so inside a batch no savepoint is needed to keep it whole.
        """
        with self._guard():
            if self._conn.in_transaction:
                yield
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def batch(self) -> Iterator[Memory]:
        """Make every write inside the block one transaction (all or nothing)."""
        with self._write():
            yield self

    # -- reads -----------------------------------------------------------------------

    def _row(self, where: str, params: Iterable[Any]) -> Document | None:
        rows = list(self._query(f"SELECT {_COLUMNS} FROM documents WHERE {where}", params))
        return _document(rows[0]) if rows else None

    def get(self, id: str, *, include_deleted: bool = False) -> Document | None:
        """The document with this id, or None (also None while deleted, unless asked)."""
        with self._guard():
            clause = "id = ?" if include_deleted else "id = ? AND deleted_at IS NULL"
            return self._row(clause, [id])

    def find_content(self, body: str) -> Document | None:
        """The live document whose body is exactly `body`, if any (what `create` would
        return instead of storing it again)."""
        with self._guard():
            return self._row("content_hash = ? AND deleted_at IS NULL", [content_hash(body)])

    def list(self, limit: int = 10, offset: int = 0) -> list[Document]:
        """Live documents, most recently updated first."""
        _check_window(limit, offset)
        with self._guard():
            rows = self._query(
                f"SELECT {_COLUMNS} FROM documents WHERE deleted_at IS NULL "
                "ORDER BY updated_at DESC, seq DESC LIMIT ? OFFSET ?",
                [limit, offset],
            )
            return [_document(row) for row in rows]

    def search(
        self, query: str, limit: int = 10, *, offset: int = 0, tags: Iterable[str] = ()
    ) -> builtins.list[Hit]:
        """Live documents matching `query` (and carrying every tag in `tags`), best bm25 rank
        first, `limit` of them from `offset`.

        `query` is FTS5 syntax (`a OR b`, `"a phrase"`, `pre*`, `title:x`, `NEAR(...)`);
        text that is not valid FTS5 is searched as its words, all required. Never raises
        on the query text. A blank query with tags lists the tagged documents, most recently
        updated first (score 0, no snippet); a blank query without tags finds nothing.
        """
        return self.search_page(query, limit, offset=offset, tags=tags)[1]

    def search_page(
        self, query: str, limit: int = 10, *, offset: int = 0, tags: Iterable[str] = ()
    ) -> tuple[int, builtins.list[Hit]]:
        """`search`, with the number of all matching live documents first."""
        _check_window(limit, offset)
        query, tag_list = scrub_surrogates(query), _tags(tags)
        if not query.strip():
            return self._tagged(tag_list, limit, offset) if tag_list else (0, [])
        with self._guard():
            try:
                return self._match(query, tag_list, limit, offset)
            except sqlite3.OperationalError:
                plain = fallback_query(query)
                return self._match(plain, tag_list, limit, offset) if plain else (0, [])

    def _match(
        self, query: str, tags: builtins.list[str], limit: int, offset: int
    ) -> tuple[int, builtins.list[Hit]]:
        if tags:
            return self._match_tagged(query, tags, limit, offset)
        # The index holds live documents only: rank inside it, then fetch the few shown.
        total = self._conn.execute(
            "SELECT COUNT(*) FROM documents_fts WHERE documents_fts MATCH ?", [query]
        )
        count = int(total.fetchone()[0])
        if count <= offset:
            return count, []
        ranked = self._conn.execute(
            f"SELECT rowid, bm25(documents_fts, {_WEIGHTS}) AS score FROM documents_fts "
            "WHERE documents_fts MATCH ? ORDER BY score LIMIT ? OFFSET ?",
            [query, limit, offset],
        ).fetchall()
        return count, self._hits(query, [(int(seq), float(score)) for seq, score in ranked])

    def _hits(self, query: str, ranked: builtins.list[tuple[int, float]]) -> builtins.list[Hit]:
        """The documents and snippets of ranked index rows, in rank order (snippets are made
        for these rows only: making one for every match is what costs)."""
        seqs = [seq for seq, _ in ranked]
        marks = ", ".join("?" * len(seqs))
        open_, close = HIGHLIGHT
        snippets = dict(
            self._conn.execute(
                f"SELECT rowid, snippet(documents_fts, -1, ?, ?, '…', 16) FROM documents_fts "
                f"WHERE documents_fts MATCH ? AND rowid IN ({marks})",
                [open_, close, query, *seqs],
            ).fetchall()
        )
        rows = self._query(f"SELECT seq, {_COLUMNS} FROM documents WHERE seq IN ({marks})", seqs)
        docs = {row["seq"]: _document(row) for row in rows}
        return [
            Hit(docs[seq], score, snippets.get(seq) or "") for seq, score in ranked if seq in docs
        ]

    def _match_tagged(
        self, query: str, tags: builtins.list[str], limit: int, offset: int
    ) -> tuple[int, builtins.list[Hit]]:
        where = "documents_fts MATCH ?" + _TAG_CLAUSE * len(tags)
        joined = "FROM documents_fts JOIN documents d ON d.seq = documents_fts.rowid"
        total = self._conn.execute(f"SELECT COUNT(*) {joined} WHERE {where}", [query, *tags])
        count = int(total.fetchone()[0])
        if count <= offset:
            return count, []
        ranked = self._conn.execute(
            f"SELECT d.seq, bm25(documents_fts, {_WEIGHTS}) AS score {joined} "
            f"WHERE {where} ORDER BY score LIMIT ? OFFSET ?",
            [query, *tags, limit, offset],
        ).fetchall()
        return count, self._hits(query, [(int(seq), float(score)) for seq, score in ranked])

    def _tagged(
        self, tags: builtins.list[str], limit: int, offset: int
    ) -> tuple[int, builtins.list[Hit]]:
        where = "d.deleted_at IS NULL" + _TAG_CLAUSE * len(tags)
        with self._guard():
            total = self._conn.execute(f"SELECT COUNT(*) FROM documents d WHERE {where}", tags)
            count = int(total.fetchone()[0])
            rows = self._query(
                f"SELECT {_PREFIXED} FROM documents d WHERE {where} "
                "ORDER BY d.updated_at DESC, d.seq DESC LIMIT ? OFFSET ?",
                [*tags, limit, offset],
            )
        return count, [Hit(_document(row), 0.0, "") for row in rows]

    def stats(self) -> Stats:
        """How many live and deleted documents there are, and the file's size."""
        with self._guard():
            live, deleted = self._conn.execute(
                "SELECT COUNT(*) FILTER (WHERE deleted_at IS NULL), "
                "COUNT(*) FILTER (WHERE deleted_at IS NOT NULL) FROM documents"
            ).fetchone()
            pages = self._conn.execute("PRAGMA page_count").fetchone()[0]
            size = self._conn.execute("PRAGMA page_size").fetchone()[0]
            return Stats(
                int(live), int(deleted), int(pages) * int(size), schema_version(self._conn)
            )

    # -- writes ----------------------------------------------------------------------

    def create(
        self, title: str, body: str, tags: Iterable[str] = (), source: str | None = None
    ) -> Document:
        """Store a document and return it.

        Dedup by body: if a live document already has this exact body it is returned
        unchanged (the new title, tags and source are ignored). If a soft-deleted one has
        it, that document is restored with the new title, tags and source.
        """
        return self.create_many([Draft(title, body, tuple(tags), source)])[0]

    def create_many(self, drafts: Iterable[Draft]) -> builtins.list[Document]:
        """Store many documents in one write (one transaction, or part of the open
        `batch()`), deduplicated like `create`, also among themselves; returns the stored
        (or existing) document of each draft, in order."""
        prepared = [_Prepared.of(draft) for draft in drafts]
        with self._write():
            known = self._by_hashes({item.digest for item in prepared})
            now = _now()
            rows: builtins.list[tuple[Any, ...]] = []
            stored: builtins.list[Document] = []
            for item in prepared:
                doc = known.get(item.digest)
                if doc is None:
                    doc = item.document(str(uuid.uuid4()), now)
                    rows.append(item.row(doc.id, now))
                elif doc.deleted_at is not None:
                    doc = self._revive(doc, item, now)
                known[item.digest] = doc
                stored.append(doc)
            self._conn.executemany(
                "INSERT INTO documents (id, title, body, tags, source, content_hash, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            return stored

    def _by_hashes(self, digests: set[str]) -> dict[str, Document]:
        """The documents (live or deleted) holding any of these bodies, by content hash."""
        found: dict[str, Document] = {}
        pending = builtins.list(digests)
        for start in range(0, len(pending), _IN_CHUNK):
            part = pending[start : start + _IN_CHUNK]
            marks = ", ".join("?" * len(part))
            rows = self._query(
                f"SELECT {_COLUMNS} FROM documents WHERE content_hash IN ({marks})", part
            )
            found.update((row["content_hash"], _document(row)) for row in rows)
        return found

    def _revive(self, doc: Document, item: _Prepared, now: str) -> Document:
        """Restore a soft-deleted document that a new draft stores again, retitled."""
        self._conn.execute(
            "UPDATE documents SET title = ?, tags = ?, source = ?, updated_at = ?, "
            "deleted_at = NULL WHERE id = ?",
            [item.title, json.dumps(item.tags), item.source, now, doc.id],
        )
        revived = self._row("id = ?", [doc.id])
        assert revived is not None
        return revived

    def update(
        self,
        id: str,
        *,
        title: str | None = None,
        body: str | None = None,
        tags: Iterable[str] | None = None,
        source: str | None = None,
    ) -> Document:
        """Change the given fields of a live document and return it.

        Raises `DocumentNotFoundError` if there is no live document `id`, and
        `DuplicateContentError` if another document (live or deleted) has the new body.
        """
        with self._write():
            doc = self._row("id = ? AND deleted_at IS NULL", [id])
            if doc is None:
                raise DocumentNotFoundError(f"{self.path}: no document {id!r}")
            changes: dict[str, Any] = {}
            if title is not None:
                changes["title"] = _clean(title)
            if tags is not None:
                changes["tags"] = json.dumps(_tags(tags))
            if source is not None:
                changes["source"] = _clean(source)
            if body is not None:
                body = _clean(body)
                digest = content_hash(body)
                other = self._row("content_hash = ? AND id != ?", [digest, id])
                if other is not None:
                    raise DuplicateContentError(
                        f"{self.path}: document {other.id} already has this content", other.id
                    )
                changes.update(body=body, content_hash=digest)
            changes["updated_at"] = _now()
            assignments = ", ".join(f"{column} = ?" for column in changes)
            self._conn.execute(
                f"UPDATE documents SET {assignments} WHERE id = ?", [*changes.values(), id]
            )
            updated = self._row("id = ?", [id])
            assert updated is not None
            return updated

    def delete(self, id: str) -> bool:
        """Soft-delete a document (hidden until restored or purged); False if not live."""
        now = _now()
        with self._write():
            cursor = self._conn.execute(
                "UPDATE documents SET deleted_at = ?, updated_at = ? "
                "WHERE id = ? AND deleted_at IS NULL",
                [now, now, id],
            )
            return cursor.rowcount > 0

    def restore(self, id: str) -> Document:
        """Bring back a soft-deleted document (a live one is returned as it is).

        Raises `DocumentNotFoundError` if no document `id` exists (or it was purged).
        """
        with self._write():
            self._conn.execute(
                "UPDATE documents SET deleted_at = NULL, updated_at = ? "
                "WHERE id = ? AND deleted_at IS NOT NULL",
                [_now(), id],
            )
            doc = self._row("id = ?", [id])
            if doc is None:
                raise DocumentNotFoundError(f"{self.path}: no document {id!r}")
            return doc

    # -- ingested files ---------------------------------------------------------------

    def sources(self, under: str = ".") -> dict[str, Source]:
        """The ingested files at or below the relative path `under` ("." for all), by path."""
        with self._guard():
            if under == ".":
                rows = self._query("SELECT * FROM sources", [])
            else:
                prefix = under.rstrip("/") + "/"
                rows = self._query(
                    "SELECT * FROM sources WHERE path = ? OR substr(path, 1, ?) = ?",
                    [under, len(prefix), prefix],
                )
            return {row["path"]: Source(**row) for row in rows}

    def record_source(
        self, path: str, *, size: int, mtime_ns: int, content_hash: str, chunks: int
    ) -> Source:
        """Record (or replace) what the ingested file `path` was when read; return it."""
        source = Source(path, size, mtime_ns, content_hash, chunks, _now())
        with self._write():
            self._conn.execute(
                "INSERT OR REPLACE INTO sources "
                "(path, size, mtime_ns, content_hash, chunks, ingested_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [path, size, mtime_ns, content_hash, chunks, source.ingested_at],
            )
        return source

    def remove_source(self, path: str) -> int:
        """Forget the ingested file `path`: remove for good (not soft-delete) every document
        whose `source` is `path`, and its record. Return how many documents went."""
        with self._write():
            # Two statements: a savepoint keeps them whole inside a caller's batch too.
            self._conn.execute("SAVEPOINT remove_source")
            try:
                removed = self._conn.execute(
                    "DELETE FROM documents WHERE source = ?", [path]
                ).rowcount
                self._conn.execute("DELETE FROM sources WHERE path = ?", [path])
            except BaseException:
                self._conn.execute("ROLLBACK TO remove_source")
                self._conn.execute("RELEASE remove_source")
                raise
            self._conn.execute("RELEASE remove_source")
            return removed

    def purge(self) -> int:
        """Remove soft-deleted documents for good; return how many."""
        with self._write():
            return self._conn.execute("DELETE FROM documents WHERE deleted_at IS NOT NULL").rowcount


def _check_window(limit: int, offset: int) -> None:
    if limit < 0 or offset < 0:
        raise ValueError(f"limit and offset must not be negative (got {limit}, {offset})")


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}")
    return scrub_surrogates(text)


def _tags(tags: Iterable[str]) -> list[str]:
    """Tags stripped, without empties or repeats, in their given order."""
    if isinstance(tags, str):
        raise TypeError("tags must be a collection of strings, not one string")
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = _clean(tag).strip()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _document(row: dict[str, Any]) -> Document:
    return Document(
        id=row["id"],
        title=row["title"],
        body=row["body"],
        tags=tuple(json.loads(row["tags"])),
        source=row["source"],
        content_hash=row["content_hash"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        deleted_at=row["deleted_at"],
    )


__all__ = [
    "HIGHLIGHT",
    "Document",
    "Draft",
    "Hit",
    "Memory",
    "Source",
    "Stats",
    "content_hash",
    "fallback_query",
]
