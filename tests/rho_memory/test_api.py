"""`Memory`: dedup, soft delete, ranked search with snippets, hostile queries, concurrency."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_memory import (
    DocumentNotFoundError,
    Draft,
    DuplicateContentError,
    Memory,
    MemoryStoreError,
)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory.open(tmp_path / ".rho" / "memory.db") as opened:
        yield opened


def test_a_created_document_reads_back_with_clean_tags(memory: Memory) -> None:
    doc = memory.create("Title", "Body text", tags=[" ops ", "ops", "", "db"], source="a.md")
    assert doc.tags == ("ops", "db")
    assert memory.get(doc.id) == doc
    assert doc.created_at == doc.updated_at and doc.created_at.endswith("Z")


def test_storing_the_same_body_again_returns_the_existing_document(memory: Memory) -> None:
    first = memory.create("First", "identical body", tags=["a"])
    again = memory.create("Second title", "identical body", tags=["b"])
    assert again == first
    assert memory.stats().documents == 1


def test_storing_the_body_of_a_deleted_document_brings_it_back_retitled(memory: Memory) -> None:
    first = memory.create("Old", "recycled body")
    memory.delete(first.id)
    again = memory.create("New", "recycled body", tags=["x"])
    assert again.id == first.id
    assert (again.title, again.tags, again.deleted_at) == ("New", ("x",), None)


def test_updating_to_another_documents_body_is_refused(memory: Memory) -> None:
    one = memory.create("one", "body one")
    two = memory.create("two", "body two")
    with pytest.raises(DuplicateContentError) as caught:
        memory.update(two.id, body="body one")
    assert caught.value.existing_id == one.id
    assert memory.get(two.id) == two


def test_update_changes_only_the_given_fields_and_reindexes(memory: Memory) -> None:
    doc = memory.create("Keep", "old words here", tags=["t"])
    updated = memory.update(doc.id, body="fresh vocabulary")
    assert (updated.title, updated.tags, updated.body) == ("Keep", ("t",), "fresh vocabulary")
    assert updated.content_hash != doc.content_hash
    assert memory.search("old") == []
    assert [h.document.id for h in memory.search("vocabulary")] == [doc.id]


def test_updating_an_unknown_or_deleted_document_raises_not_found(memory: Memory) -> None:
    doc = memory.create("t", "b")
    memory.delete(doc.id)
    for id in (doc.id, "no-such-id"):
        with pytest.raises(DocumentNotFoundError):
            memory.update(id, title="x")


def test_soft_delete_hides_from_get_list_and_search_until_restored(memory: Memory) -> None:
    doc = memory.create("Gone", "ephemeral penguin")
    assert memory.delete(doc.id) is True
    assert memory.delete(doc.id) is False
    assert memory.get(doc.id) is None
    assert memory.get(doc.id, include_deleted=True) is not None
    assert memory.list() == []
    assert memory.search("penguin") == []
    assert memory.stats().deleted == 1
    restored = memory.restore(doc.id)
    assert restored.deleted_at is None
    assert [h.document.id for h in memory.search("penguin")] == [doc.id]


def test_purge_removes_deleted_documents_for_good(memory: Memory) -> None:
    kept = memory.create("kept", "stays here")
    gone = memory.create("gone", "leaves for good")
    memory.delete(gone.id)
    assert memory.purge() == 1
    with pytest.raises(DocumentNotFoundError):
        memory.restore(gone.id)
    assert [d.id for d in memory.list()] == [kept.id]
    assert memory.search("leaves") == []
    # The body is free again: storing it makes a new document.
    assert memory.create("again", "leaves for good").id != gone.id


def test_list_pages_newest_first(memory: Memory) -> None:
    ids = [memory.create(f"t{n}", f"body {n}").id for n in range(5)]
    assert [d.id for d in memory.list(limit=2)] == ids[::-1][:2]
    assert [d.id for d in memory.list(limit=10, offset=3)] == ids[::-1][3:]
    with pytest.raises(ValueError):
        memory.list(limit=-1)


def test_search_ranks_title_matches_and_dense_matches_first(memory: Memory) -> None:
    passing = memory.create("Unrelated", "one mention of kraken among many other words " * 3)
    dense = memory.create("Notes", "kraken kraken kraken kraken")
    titled = memory.create("Kraken", "a description of the sea monster")
    memory.create("Other", "nothing relevant")
    hits = memory.search("kraken")
    assert [h.document.id for h in hits] == [titled.id, dense.id, passing.id]
    assert hits[0].score <= hits[1].score <= hits[2].score


def test_search_pages_count_every_match_and_filter_by_exact_tags(memory: Memory) -> None:
    docs = [memory.create(f"note {i}", f"deploy step {i}", tags=["ops"]) for i in range(5)]
    memory.create("tagged alike", "deploy elsewhere", tags=["opsec"])
    memory.create("deleted", "deploy gone", tags=["ops"])
    memory.delete(memory.search("gone")[0].document.id)
    total, first = memory.search_page("deploy", limit=2, tags=["ops"])
    total_again, rest = memory.search_page("deploy", limit=10, offset=2, tags=["ops"])
    assert total == total_again == 5
    assert len(first) == 2 and len(rest) == 3
    assert {h.document.id for h in first + rest} == {d.id for d in docs}
    assert memory.search_page("deploy", tags=["ops", "missing"]) == (0, [])
    assert memory.search_page("deploy", offset=99)[0] == 6


def test_a_blank_query_with_tags_lists_the_tagged_newest_first(memory: Memory) -> None:
    old = memory.create("old", "first body", tags=["adr"])
    new = memory.create("new", "second body", tags=["adr", "db"])
    memory.create("untagged", "third body")
    total, hits = memory.search_page("  ", tags=["adr"])
    assert total == 2
    assert [h.document.id for h in hits] == [new.id, old.id]
    assert memory.search_page("", tags=[]) == (0, [])


def test_search_snippets_highlight_the_matched_terms(memory: Memory) -> None:
    body = " ".join(["filler"] * 50 + ["the", "migration", "upgrades", "files"] + ["tail"] * 50)
    memory.create("Plain", body)
    (hit,) = memory.search("migration")
    assert "**migration**" in hit.snippet
    assert len(hit.snippet) < len(body)


def test_search_supports_fts5_syntax(memory: Memory) -> None:
    a = memory.create("alpha", "red apple")
    b = memory.create("beta", "green pear")
    assert {h.document.id for h in memory.search("apple OR pear")} == {a.id, b.id}
    assert [h.document.id for h in memory.search("app*")] == [a.id]
    assert [h.document.id for h in memory.search('"green pear"')] == [b.id]
    assert [h.document.id for h in memory.search("title:beta")] == [b.id]
    assert memory.search("apple pear") == []


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "(open",
        "close)",
        "-dash",
        "a AND",
        "AND",
        "*",
        "NEAR(",
        "x:y",
        "'",
        "\x00",
        "\ud800",
        "",
        "   ",
        "well-known",
        "c++ AND (",
        "**",
        "^",
        "NOT",
    ],
)
def test_hostile_queries_never_raise(memory: Memory, query: str) -> None:
    memory.create("well-known c++ trick", "dash-separated words and parentheses (yes)")
    assert isinstance(memory.search(query), list)


def test_plain_text_that_is_not_fts5_still_finds_its_words(memory: Memory) -> None:
    doc = memory.create("Guide", "the well-known trick for c++ templates")
    assert [h.document.id for h in memory.search('c++ "templates')] == [doc.id]
    assert [h.document.id for h in memory.search("well-known (trick")] == [doc.id]


def test_search_never_raises_on_any_text(tmp_path: Path) -> None:
    # One store for every drawn query (a search only reads it), opened once, not per example.
    with Memory.open(tmp_path / "memory.db") as memory:
        memory.create("Seed doc", 'some words: quotes " dashes - stars * (parens)')

        @settings(max_examples=300, deadline=None)
        @given(query=st.text(max_size=40))
        def search_any(query: str) -> None:
            assert isinstance(memory.search(query), list)

        search_any()


def test_text_with_lone_surrogates_is_stored_scrubbed(memory: Memory) -> None:
    doc = memory.create("bad \ud800 title", "body \udfff")
    assert "\ud800" not in doc.title and "\udfff" not in doc.body
    assert memory.get(doc.id) == doc


def test_a_batch_is_one_transaction(memory: Memory) -> None:
    with pytest.raises(RuntimeError), memory.batch():
        memory.create("a", "first in batch")
        memory.create("b", "second in batch")
        raise RuntimeError("abort")
    assert memory.stats().documents == 0
    with memory.batch():
        memory.create("a", "first in batch")
        memory.create("b", "second in batch")
    assert memory.stats().documents == 2


def test_operations_on_a_closed_memory_raise_memory_store_error(memory: Memory) -> None:
    memory.close()
    with pytest.raises(MemoryStoreError, match=r"memory\.db"):
        memory.list()


WRITER = """
import sys
from pathlib import Path
from rho_memory import Memory
path, worker = Path(sys.argv[1]), sys.argv[2]
with Memory.open(path) as memory:
    for n in range(150):
        memory.create(f"w{worker}-{n}", f"worker {worker} document {n} concurrent")
"""


def test_two_processes_writing_at_once_both_land_every_document(tmp_path: Path) -> None:
    path = tmp_path / ".rho" / "memory.db"
    Memory.open(path).close()
    workers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w)], stderr=subprocess.PIPE)
        for w in range(2)
    ]
    errors = [worker.communicate(timeout=60)[1] for worker in workers]
    assert [w.returncode for w in workers] == [0, 0], errors
    with Memory.open(path) as memory:
        assert memory.stats().documents == 300
        assert len(memory.search("concurrent", limit=1000)) == 300


def test_two_connections_in_one_process_interleave_writes(tmp_path: Path) -> None:
    path = tmp_path / ".rho" / "memory.db"
    with Memory.open(path) as one, Memory.open(path) as two:
        a = one.create("a", "from the first connection")
        b = two.create("b", "from the second connection")
        assert two.get(a.id) == a
        assert one.get(b.id) == b
        assert two.create("dup", "from the first connection") == a


def test_sources_are_recorded_listed_by_directory_and_removed_with_their_documents(
    memory: Memory,
) -> None:
    for path in ("docs/a.md", "docs/sub/b.md", "docsx.md", "docs_c.md"):
        memory.record_source(path, size=1, mtime_ns=2, content_hash="h", chunks=1)
        memory.create(path, f"body of {path}", source=path)
    kept = memory.create("Note", "a note typed by hand")
    assert set(memory.sources("docs")) == {"docs/a.md", "docs/sub/b.md"}
    assert set(memory.sources("docs/a.md")) == {"docs/a.md"}
    assert len(memory.sources()) == 4
    assert memory.remove_source("docs/a.md") == 1
    assert "docs/a.md" not in memory.sources()
    assert memory.stats().documents == 4 and memory.stats().deleted == 0
    assert memory.get(kept.id) == kept


def test_recording_a_source_again_replaces_it(memory: Memory) -> None:
    memory.record_source("a.md", size=1, mtime_ns=2, content_hash="h", chunks=1)
    memory.record_source("a.md", size=5, mtime_ns=6, content_hash="k", chunks=0)
    (source,) = memory.sources().values()
    assert (source.size, source.mtime_ns, source.content_hash, source.chunks) == (5, 6, "k", 0)


def test_create_many_stores_in_order_and_dedups_within_and_against_the_store(
    memory: Memory,
) -> None:
    live = memory.create("live", "already here")
    gone = memory.create("gone", "deleted body")
    memory.delete(gone.id)
    docs = memory.create_many(
        [
            Draft("one", "first body", ("a",)),
            Draft("again", "already here"),
            Draft("twice", "first body", ("b",)),
            Draft("back", "deleted body", ("c",), "notes.md"),
        ]
    )
    assert [d.title for d in docs] == ["one", "live", "one", "back"]
    assert docs[1] == live and docs[0] == docs[2]
    assert docs[3].id == gone.id and docs[3].deleted_at is None and docs[3].tags == ("c",)
    assert memory.stats().documents == 3
    assert [h.document.id for h in memory.search("first")] == [docs[0].id]


def test_create_many_is_all_or_nothing(memory: Memory) -> None:
    with pytest.raises(TypeError):
        memory.create_many([Draft("ok", "fine"), Draft("bad", 42)])  # type: ignore[arg-type]
    assert memory.stats().documents == 0
