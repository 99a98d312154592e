"""`ingest`: project documents into the knowledge base, changed files only, atomically."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.security import PathNotFoundError, SandboxError, SandboxRoot
from rho_memory import IngestReport, Memory, ingest
from rho_memory import ingestion as ingestion_module


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "docs" / "deep").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text(
        "---\ntitle: hidden front\n---\n# Install\nuse pipx\n## On Linux\napt zebra\n"
    )
    (root / "docs" / "deep" / "notes.txt").write_text("plain giraffe notes\n")
    (root / "README.md").write_text("# Readme\nwelcome okapi\n")
    return root


@pytest.fixture
def memory(project: Path) -> Iterator[Memory]:
    with Memory.open(project / ".rho" / "memory.db") as opened:
        yield opened


def _titles(memory: Memory, query: str) -> list[str]:
    return sorted(hit.document.title for hit in memory.search(query))


def _set_mtime(path: Path, seconds: int) -> None:
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))


def test_a_directory_is_ingested_as_chunks_owned_by_their_files(
    project: Path, memory: Memory
) -> None:
    report = ingest(memory, SandboxRoot(project))
    assert (report.files, report.added, report.documents, report.skipped) == (3, 3, 4, [])
    assert _titles(memory, "zebra") == ["docs/guide.md › Install › On Linux"]
    (hit,) = memory.search("giraffe")
    assert hit.document.source == "docs/deep/notes.txt"
    assert hit.document.tags == ("ingested",)
    assert memory.search("hidden") == []  # front matter
    assert set(memory.sources()) == {"README.md", "docs/guide.md", "docs/deep/notes.txt"}
    assert memory.sources()["docs/guide.md"].chunks == 2
    assert report.summary() == (
        "ingested .: 3 added, 0 updated, 0 unchanged, 0 removed (4 documents)"
    )


def test_the_memory_database_and_hidden_or_vendored_directories_are_not_walked(
    project: Path, memory: Memory
) -> None:
    for directory in (".git", "node_modules", "target", "__pycache__", "venv", "docs/.cache"):
        (project / directory).mkdir(parents=True, exist_ok=True)
        (project / directory / "x.md").write_text("# Vendored\nvendored walrus\n")
    (project / ".hidden.md").write_text("hidden walrus\n")
    (project / "code.py").write_text("# walrus\n")
    report = ingest(memory, SandboxRoot(project))
    assert report.files == 3
    assert memory.search("walrus") == []


def test_touching_files_without_changing_them_leaves_them_unchanged(
    project: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    before = {doc.id for doc in memory.list(limit=100)}
    for path in project.rglob("*.*"):
        if ".rho" not in path.parts:
            _set_mtime(path, 1_000_000)
    report = ingest(memory, root)
    assert (report.unchanged, report.added, report.updated, report.documents) == (3, 0, 0, 0)
    assert {doc.id for doc in memory.list(limit=100)} == before
    assert memory.sources()["README.md"].mtime_ns == 1_000_000 * 10**9
    # Now size and mtime match the record: the files are not even opened.
    opened: list[str] = []
    real_open = root.open_read
    monkeypatch.setattr(root, "open_read", lambda path: opened.append(path) or real_open(path))
    assert ingest(memory, root).unchanged == 3
    assert opened == []


def test_an_edited_file_alone_is_updated_and_its_old_chunks_disappear(
    project: Path, memory: Memory
) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    untouched = {hit.document.id for hit in memory.search("okapi OR giraffe")}
    guide = project / "docs" / "guide.md"
    guide.write_text("# Install\nuse conda now\n")
    _set_mtime(guide, 2_000_000)
    report = ingest(memory, root)
    assert (report.updated, report.unchanged, report.documents) == (1, 2, 1)
    assert memory.search("zebra") == [] and memory.search("pipx") == []
    assert _titles(memory, "conda") == ["docs/guide.md › Install"]
    assert {hit.document.id for hit in memory.search("okapi OR giraffe")} == untouched
    assert memory.stats().deleted == 0  # removed for good, not soft-deleted


def test_a_removed_file_loses_its_documents_and_record(project: Path, memory: Memory) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    (project / "docs" / "deep" / "notes.txt").unlink()
    report = ingest(memory, root, "docs")
    assert (report.path, report.removed, report.unchanged) == ("docs", 1, 1)
    assert memory.search("giraffe") == []
    assert "docs/deep/notes.txt" not in memory.sources()
    assert memory.search("okapi")  # outside the walked directory: kept


def test_ingesting_a_subdirectory_does_not_forget_files_elsewhere(
    project: Path, memory: Memory
) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    (project / "docsx.md").write_text("sibling\n")
    report = ingest(memory, root, "docs/deep")
    assert (report.files, report.unchanged, report.removed) == (1, 1, 0)
    assert len(memory.sources()) == 3


def test_a_single_file_can_be_ingested(project: Path, memory: Memory) -> None:
    report = ingest(memory, SandboxRoot(project), "docs/guide.md")
    assert (report.files, report.added, report.documents) == (1, 1, 2)
    assert list(memory.sources()) == ["docs/guide.md"]


def test_a_symlink_to_a_file_outside_the_root_is_not_read(
    project: Path, memory: Memory, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\ntop secret aardvark\n")
    (project / "docs" / "leak.md").symlink_to(secret)
    (project / "docs" / "inner.md").symlink_to(project / "README.md")
    (project / "linked").symlink_to(tmp_path, target_is_directory=True)
    report = ingest(memory, SandboxRoot(project))
    assert memory.search("aardvark") == []
    assert ("docs/leak.md", "symbolic link (not followed)") in report.skipped
    assert "docs/inner.md" not in memory.sources()
    with pytest.raises(SandboxError):
        ingest(memory, SandboxRoot(project), "docs/leak.md")


def test_paths_outside_the_project_are_refused(
    project: Path, memory: Memory, tmp_path: Path
) -> None:
    (tmp_path / "outside.md").write_text("# Out\noutside pangolin\n")
    root = SandboxRoot(project)
    for path in ("../outside.md", "..", str(tmp_path / "outside.md")):
        with pytest.raises(SandboxError):
            ingest(memory, root, path)
    with pytest.raises(PathNotFoundError):
        ingest(memory, root, "missing.md")
    assert memory.search("pangolin") == [] and memory.sources() == {}


def test_big_binary_and_non_utf8_files_are_skipped_with_the_reason(
    project: Path, memory: Memory
) -> None:
    (project / "big.md").write_text("# Big\n" + "x" * 2000 + "\n")
    (project / "binary.txt").write_bytes(b"text\x00with nul")
    (project / "latin1.txt").write_bytes("café lemur".encode("latin-1"))
    (project / os.fsdecode(b"bad\xffname.md")).write_text("# Bad name\nlemur\n")
    report = ingest(memory, SandboxRoot(project), max_file_bytes=1000)
    assert dict(report.skipped) == {
        "big.md": "larger than 1000 bytes",
        "binary.txt": "binary file (NUL bytes)",
        "latin1.txt": "not valid UTF-8",
        os.fsdecode(b"bad\xffname.md"): "file name is not valid UTF-8",
    }
    assert report.summary().endswith("; 4 skipped")
    assert memory.search("lemur") == [] and report.added == 3


def test_a_file_that_becomes_too_big_loses_its_documents(project: Path, memory: Memory) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    (project / "README.md").write_text("# Readme\nwelcome okapi\n" + "y" * 5000)
    report = ingest(memory, root, max_file_bytes=1000)
    assert report.removed == 1 and memory.search("okapi") == []


def test_the_walk_stops_at_max_files_without_forgetting_the_rest(
    project: Path, memory: Memory
) -> None:
    root = SandboxRoot(project)
    ingest(memory, root)
    report = ingest(memory, root, max_files=1)
    assert (report.files, report.truncated, report.removed) == (1, True, 0)
    assert report.to_dict()["truncated"] is True
    assert report.summary().endswith("; stopped at the limit of 1 files")
    assert len(memory.sources()) == 3


def test_an_error_midway_leaves_the_knowledge_base_as_it_was(
    project: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = SandboxRoot(project)
    ingest(memory, root, "docs/guide.md")
    before = (memory.sources(), sorted(d.id for d in memory.list(limit=100)))
    (project / "docs" / "guide.md").write_text("# Install\nrewritten\n")
    real = ingestion_module.chunking.chunk_file
    calls: list[str] = []

    def failing(rel_path: str, text: str) -> list[object]:
        calls.append(rel_path)
        if len(calls) == 2:
            raise RuntimeError("chunking failed")
        return real(rel_path, text)

    monkeypatch.setattr(ingestion_module.chunking, "chunk_file", failing)
    with pytest.raises(RuntimeError, match="chunking failed"):
        ingest(memory, root)
    assert calls == ["README.md", "docs/deep/notes.txt"]
    assert (memory.sources(), sorted(d.id for d in memory.list(limit=100))) == before
    monkeypatch.undo()
    assert ingest(memory, root).added == 2  # and the next run works


def test_a_chunk_already_stored_stays_with_its_first_owner(project: Path, memory: Memory) -> None:
    (project / "copy.txt").write_text("plain giraffe notes\n")
    report = ingest(memory, SandboxRoot(project))
    assert report.documents == 4
    assert memory.sources()["docs/deep/notes.txt"].chunks == 0
    (hit,) = memory.search("giraffe")
    assert hit.document.source == "copy.txt"  # walked first: "copy.txt" < "docs/…"


def test_the_report_is_json_ready() -> None:
    report = IngestReport("docs", files=2, added=1, skipped=[("a.md", "why")])
    assert report.to_dict() == {
        "path": "docs",
        "files": 2,
        "added": 1,
        "updated": 0,
        "unchanged": 0,
        "removed": 0,
        "documents": 0,
        "skipped": [{"path": "a.md", "reason": "why"}],
        "truncated": False,
    }


def test_a_file_swapped_between_listing_and_opening_is_skipped(
    project: Path, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = SandboxRoot(project)
    real_open = root.open_read
    # Opening README.md yields another file, as if it were replaced after the listing.
    monkeypatch.setattr(
        root, "open_read", lambda path: real_open("docs/guide.md" if path == "README.md" else path)
    )
    report = ingest(memory, root)
    assert ("README.md", "replaced while being read") in report.skipped
    assert "README.md" not in memory.sources()


_KEY_BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
]


@pytest.mark.parametrize("end", [True, False])
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_no_chunk_holds_a_private_key_body(
    project: Path, memory: Memory, end: bool, eol: str
) -> None:
    lines = ["# Deploy", "the key:", "-----BEGIN OPENSSH PRIVATE KEY-----", *_KEY_BODY]
    lines += ["-----END OPENSSH PRIVATE KEY-----", "## After", "done"] if end else []
    # many paragraphs, so the key's lines fall into a chunk of their own
    filler = eol.join(f"paragraph {n} " + "words " * 40 for n in range(30))
    (project / "docs" / "keys.md").write_bytes((filler + eol + eol.join(lines) + eol).encode())
    ingest(memory, SandboxRoot(project), "docs")
    stored = " ".join(doc.body for doc in memory.list(limit=1000))
    assert "paragraph 3 " in stored
    for line in _KEY_BODY:
        assert line not in stored and line[:20] not in stored
