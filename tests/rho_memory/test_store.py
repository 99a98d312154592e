"""The memory file: creation, WAL, migrations of old files, refusal of foreign files."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rho_memory import Memory, MemoryStoreError
from rho_memory.store import MIGRATIONS, SCHEMA_VERSION, _statements, connect


def _db(tmp_path: Path) -> Path:
    return tmp_path / ".rho" / "memory.db"


def test_opening_creates_the_directory_and_a_wal_database_at_the_current_version(
    tmp_path: Path,
) -> None:
    path = _db(tmp_path)
    conn = connect(path)
    try:
        assert path.is_file()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_a_version_one_file_is_upgraded_in_place_keeping_its_documents(tmp_path: Path) -> None:
    path = _db(tmp_path)
    path.parent.mkdir()
    old = sqlite3.connect(path)
    for statement in _statements(MIGRATIONS[0]):
        old.execute(statement)
    old.execute("PRAGMA user_version = 1")
    old.execute(
        "INSERT INTO documents (id, title, body, tags, content_hash, created_at, updated_at) "
        "VALUES ('6f1c4a52-0000-4000-8000-000000000001', 'Old', 'kept across upgrades', "
        "'[\"legacy\"]', 'h1', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')"
    )
    old.commit()
    old.close()

    with Memory.open(path) as memory:
        (hit,) = memory.search("upgrades")
        assert hit.document.title == "Old"
        assert hit.document.tags == ("legacy",)
        assert hit.document.source is None
        assert memory.stats().schema_version == SCHEMA_VERSION
        new = memory.create("New", "written after the upgrade", source="notes.md")
        assert memory.get(new.id) == new


def test_a_version_two_file_gains_the_sources_table_and_keeps_its_documents(
    tmp_path: Path,
) -> None:
    path = _db(tmp_path)
    path.parent.mkdir()
    old = sqlite3.connect(path)
    for script in MIGRATIONS[:2]:
        for statement in _statements(script):
            old.execute(statement)
    old.execute("PRAGMA user_version = 2")
    old.execute(
        "INSERT INTO documents (id, title, body, tags, content_hash, created_at, updated_at, "
        "source) VALUES ('6f1c4a52-0000-4000-8000-000000000002', 'Old', 'from version two', "
        "'[]', 'h2', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', 'a.md')"
    )
    old.commit()
    old.close()

    with Memory.open(path) as memory:
        assert memory.stats().schema_version == SCHEMA_VERSION >= 3
        assert memory.sources() == {}
        memory.record_source("a.md", size=1, mtime_ns=1, content_hash="h", chunks=1)
        assert memory.remove_source("a.md") == 1
        assert memory.search("version") == []


def test_a_version_three_file_drops_deleted_documents_from_its_index(tmp_path: Path) -> None:
    path = _db(tmp_path)
    path.parent.mkdir()
    old = sqlite3.connect(path)
    for script in MIGRATIONS[:3]:
        for statement in _statements(script):
            old.execute(statement)
    old.execute("PRAGMA user_version = 3")
    for n, deleted in ((1, "NULL"), (2, "'2024-02-01T00:00:00Z'")):
        old.execute(
            "INSERT INTO documents (id, title, body, tags, content_hash, created_at, updated_at, "
            f"deleted_at) VALUES ('6f1c4a52-0000-4000-8000-00000000000{n}', 'Doc {n}', "
            f"'kraken number {n}', '[]', 'h{n}', '2024-01-01T00:00:00Z', "
            f"'2024-01-01T00:00:00Z', {deleted})"
        )
    old.commit()
    assert old.execute(
        "SELECT COUNT(*) FROM documents_fts WHERE documents_fts MATCH 'kraken'"
    ).fetchone() == (2,)
    old.close()

    with Memory.open(path) as memory:
        assert memory.stats().schema_version == SCHEMA_VERSION >= 4
        assert [h.document.title for h in memory.search("kraken")] == ["Doc 1"]
        assert memory.search_page("kraken")[0] == 1
        memory.restore("6f1c4a52-0000-4000-8000-000000000002")
        assert len(memory.search("kraken")) == 2
        memory.delete("6f1c4a52-0000-4000-8000-000000000001")
        assert [h.document.title for h in memory.search("kraken")] == ["Doc 2"]
        assert memory.purge() == 1
        assert memory.search_page("kraken")[0] == 1


def test_a_file_from_a_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    path = _db(tmp_path)
    connect(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(MemoryStoreError, match=r"memory\.db.*newer"):
        Memory.open(path)


def test_a_non_sqlite_file_is_refused_by_name_and_left_untouched(tmp_path: Path) -> None:
    path = _db(tmp_path)
    path.parent.mkdir()
    text = b"# not a database\n" * 100
    path.write_bytes(text)
    with pytest.raises(MemoryStoreError, match=r"memory\.db.*not a SQLite database"):
        Memory.open(path)
    assert path.read_bytes() == text
    assert not path.with_name("memory.db-wal").exists()


def test_a_corrupt_sqlite_file_raises_memory_store_error_naming_it(tmp_path: Path) -> None:
    path = _db(tmp_path)
    with Memory.open(path) as memory:
        for n in range(200):
            memory.create(f"doc {n}", f"body number {n} " * 20)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # keep the header, wreck every page
    path.write_bytes(bytes(data))
    with pytest.raises(MemoryStoreError, match=r"memory\.db"):
        memory = Memory.open(path)
        memory.search("body")


def test_a_directory_in_place_of_the_file_is_a_clear_error(tmp_path: Path) -> None:
    path = _db(tmp_path)
    path.mkdir(parents=True)
    with pytest.raises(MemoryStoreError, match=r"memory\.db"):
        Memory.open(path)


def test_connections_racing_to_create_a_new_file_all_succeed(tmp_path: Path) -> None:
    path = _db(tmp_path)
    start = threading.Barrier(6)

    def open_it() -> int:
        start.wait()
        conn = connect(path)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()

    with ThreadPoolExecutor(6) as pool:
        versions = list(pool.map(lambda _: open_it(), range(6)))
    assert versions == [SCHEMA_VERSION] * 6


def test_migration_statements_keep_trigger_bodies_whole() -> None:
    statements = _statements(MIGRATIONS[0])
    triggers = [s for s in statements if s.startswith("CREATE TRIGGER")]
    assert len(triggers) == 3
    assert all(s.endswith("END;") for s in triggers)


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_a_database_or_journal_that_is_a_symlink_is_refused(tmp_path: Path, suffix: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's file\n")
    path = tmp_path / ".rho" / "memory.db"
    path.parent.mkdir()
    (path.parent / f"memory.db{suffix}").symlink_to(outside)
    with pytest.raises(MemoryStoreError, match="symbolic link"):
        connect(path)
    assert outside.read_text() == "the user's file\n"


@pytest.mark.parametrize(
    "extra",
    [
        "CREATE TRIGGER spy AFTER INSERT ON documents BEGIN "
        "UPDATE documents SET body = 'x' WHERE seq = new.seq; END",
        "CREATE VIEW peek AS SELECT * FROM documents",
        "CREATE TABLE stash (x)",
    ],
)
def test_a_file_with_schema_objects_of_its_own_is_refused(tmp_path: Path, extra: str) -> None:
    path = tmp_path / "memory.db"
    connect(path).close()
    raw = sqlite3.connect(path)
    raw.execute(extra)
    raw.commit()
    raw.close()
    with pytest.raises(MemoryStoreError, match=r"unexpected (trigger|view|table)"):
        connect(path)
