"""Ingesting the project's documents (Markdown and text files) into the knowledge base.

`ingest(memory, root, path)` walks a file or directory of the project, chunks each document
(`rho_memory.chunking`) and stores the chunks as documents whose `source` is the file's
path relative to the root, re-reading only files that changed since the last ingest.

Import lazily: this module pulls in `sqlite3` through `rho_memory.api`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from rho_kernel.security import KeyBlockLines, SandboxError, SandboxRoot
from rho_memory import chunking
from rho_memory.api import Draft, Memory, Source

#: Directory names never walked into (besides every name starting with ".").
SKIPPED_DIRS = frozenset({"node_modules", "target", "__pycache__", "venv"})

#: The file suffixes (lower case) ingested.
SUFFIXES = chunking.MARKDOWN_SUFFIXES | chunking.TEXT_SUFFIXES

#: The tag every ingested document carries.
INGESTED_TAG = "ingested"


@dataclass
class IngestReport:
    """What one `ingest` did. `files` counts the files considered; `added`, `updated`,
    `unchanged` and `removed` count files; `documents` the documents written for the added
    and updated ones; `skipped` lists (path, reason) for files left out; `truncated` says
    the walk stopped at the file limit (the files past it were neither read nor forgotten).
    """

    path: str
    files: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    documents: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (`skipped` as a list of {path, reason})."""
        skipped = [{"path": path, "reason": reason} for path, reason in self.skipped]
        return {**asdict(self), "skipped": skipped}

    def summary(self) -> str:
        """One line, e.g. `ingested docs: 3 added, 1 updated, 10 unchanged, 1 removed
        (24 documents); 2 skipped`."""
        line = (
            f"ingested {self.path}: {self.added} added, {self.updated} updated, "
            f"{self.unchanged} unchanged, {self.removed} removed ({self.documents} documents)"
        )
        if self.skipped:
            line += f"; {len(self.skipped)} skipped"
        if self.truncated:
            line += f"; stopped at the limit of {self.files} files"
        return line


def ingest(
    memory: Memory,
    root: SandboxRoot,
    path: str = ".",
    *,
    max_files: int = 5000,
    max_file_bytes: int = 1_048_576,
) -> IngestReport:
    """Ingest the Markdown and text files at `path` (a file, or a directory walked
    recursively) into `memory`, and return what was done.

    `path` is checked with `root.validate`: its `SandboxError` (`PathNotFoundError` among
    them) propagates for a path outside the project or missing. A walk skips names
    starting with ".", `SKIPPED_DIRS` and symbolic links (never followed), and ignores other
    suffixes than `SUFFIXES`; files over `max_file_bytes`, not UTF-8, binary or unreadable
    are skipped with the reason. Files are taken in path order, at most `max_files`.

    A file whose size and mtime, or else whose content hash, match its last ingest is
    unchanged. A changed file loses its documents for good (they are derived from it) and
    gets new ones: one per chunk, tagged `INGESTED_TAG`, `source` = its relative path.
    Previously ingested files under `path` that are gone, or now skipped, lose their
    documents and record. Identical text is stored once: a chunk whose body a live document
    already holds is not stored again and stays owned by that document's source (or by no
    file, for a document written by hand).

    All the writes are one transaction: an error leaves the knowledge base as it was.
    Blocking (file I/O): run it in a thread from async code.
    """
    target = root.validate(path)
    scope = root.relative(target)
    report = IngestReport(scope)
    if stat.S_ISDIR(os.stat(target).st_mode):
        candidates = _walk(root, target)
    elif PurePosixPath(scope).suffix.lower() in SUFFIXES:
        candidates = [scope]
    else:
        candidates = []
        report.skipped.append((scope, "not a Markdown or text file"))
    candidates.sort()
    deferred = set(candidates[max_files:])
    report.truncated = bool(deferred)
    candidates = candidates[:max_files]
    report.files = len(candidates)
    with memory.batch():
        known = memory.sources(scope)
        current: set[str] = set()
        for rel in candidates:
            if _ingest_file(memory, root, rel, known.get(rel), report, max_file_bytes):
                current.add(rel)
        for stale in sorted(known.keys() - current - deferred):
            memory.remove_source(stale)
            report.removed += 1
    return report


def _walk(root: SandboxRoot, top: Path) -> list[str]:
    """Relative paths of the candidate files below `top` (see `ingest`)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames[:] = sorted(
            name for name in dirnames if not name.startswith(".") and name not in SKIPPED_DIRS
        )
        for name in filenames:
            if not name.startswith(".") and PurePosixPath(name).suffix.lower() in SUFFIXES:
                found.append(root.relative(Path(dirpath, name)))
    return found


def _ingest_file(
    memory: Memory,
    root: SandboxRoot,
    rel: str,
    known: Source | None,
    report: IngestReport,
    max_file_bytes: int,
) -> bool:
    """Bring one file's documents up to date; False if it was skipped."""
    outcome = _read_if_changed(root, rel, known, max_file_bytes)
    if isinstance(outcome, str):
        report.skipped.append((rel, outcome))
        return False
    if outcome is None:
        report.unchanged += 1
        return True
    info, data = outcome
    digest = hashlib.sha256(data).hexdigest()
    if known is not None and known.content_hash == digest:
        memory.record_source(
            rel,
            size=info.st_size,
            mtime_ns=info.st_mtime_ns,
            content_hash=digest,
            chunks=known.chunks,
        )
        report.unchanged += 1
        return True
    text = _decode(data)
    if isinstance(text, _Refusal):
        report.skipped.append((rel, text.reason))
        return False
    if known is not None:
        memory.remove_source(rel)
    text = KeyBlockLines.of(text).hide_text(text)  # a chunk may hold a key's body alone
    drafts = [
        Draft(chunk.title, chunk.body, (INGESTED_TAG,), rel)
        for chunk in chunking.chunk_file(rel, text)
    ]
    owned = {doc.id for doc in memory.create_many(drafts) if doc.source == rel}
    memory.record_source(
        rel, size=info.st_size, mtime_ns=info.st_mtime_ns, content_hash=digest, chunks=len(owned)
    )
    report.documents += len(owned)
    if known is None:
        report.added += 1
    else:
        report.updated += 1
    return True


def _read_if_changed(
    root: SandboxRoot, rel: str, known: Source | None, max_file_bytes: int
) -> tuple[os.stat_result, bytes] | str | None:
    """The file's status (taken before reading) and bytes; None if its size and mtime
    match `known` (not read); a reason string if it must be skipped."""
    if _has_surrogates(rel):
        return "file name is not valid UTF-8"
    try:
        info = os.lstat(root.path / rel)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return "symbolic link (not followed)"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > max_file_bytes:
        return f"larger than {max_file_bytes} bytes"
    if known is not None and (known.size, known.mtime_ns) == (info.st_size, info.st_mtime_ns):
        return None
    try:
        with root.open_read(rel) as handle:
            opened = os.fstat(handle.fileno())
            if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                return "replaced while being read"
            data = handle.read(max_file_bytes + 1)
    except SandboxError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if len(data) > max_file_bytes:
        return f"larger than {max_file_bytes} bytes"
    return opened, data


@dataclass(frozen=True)
class _Refusal:
    reason: str


def _decode(data: bytes) -> str | _Refusal:
    """The file's text, or why it is not a text document."""
    if b"\0" in data:
        return _Refusal("binary file (NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _Refusal("not valid UTF-8")


def _has_surrogates(text: str) -> bool:
    """Whether `text` holds lone surrogates (from undecodable bytes in a file name)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


__all__ = ["INGESTED_TAG", "SKIPPED_DIRS", "SUFFIXES", "IngestReport", "ingest"]
