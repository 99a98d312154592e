"""The project knowledge base for rho (SQLite FTS5).

- `rho_memory.config.MemoryConfig`: the `[memory]` section, declared by the
  `rho_memory.plugin` entry point.
- `Memory` (`Memory.open(path)`): documents with full-text search in `<root>/.rho/memory.db`;
  `Document`, `Hit` and `Stats` are what it returns.
- `MemoryStoreError` (and its `DocumentNotFoundError`, `DuplicateContentError`): what it raises.
- `ingest(memory, root, path)`: store the project's Markdown and text files as documents,
  re-reading only changed files; it returns an `IngestReport`. `Source` is what
  `Memory.sources()` returns for each ingested file.

`Memory`, `ingest` and the errors load `sqlite3` on first access, keeping it off rho's
startup path. (The function lives in `rho_memory.ingestion`: a submodule named `ingest`
would shadow it as an attribute of the package.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports
from rho_memory.config import MemoryConfig

if TYPE_CHECKING:
    __version__: str
    from rho_memory.api import Document, Draft, Hit, Memory, Source, Stats
    from rho_memory.ingestion import IngestReport, ingest
    from rho_memory.store import DocumentNotFoundError, DuplicateContentError, MemoryStoreError


_LAZY = {
    "Document": "rho_memory.api",
    "Draft": "rho_memory.api",
    "Hit": "rho_memory.api",
    "Memory": "rho_memory.api",
    "Source": "rho_memory.api",
    "Stats": "rho_memory.api",
    "IngestReport": "rho_memory.ingestion",
    "ingest": "rho_memory.ingestion",
    "DocumentNotFoundError": "rho_memory.store",
    "DuplicateContentError": "rho_memory.store",
    "MemoryStoreError": "rho_memory.store",
}

if not TYPE_CHECKING:  # each name (and `__version__`) imported on first use
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-memory")


__all__ = [
    "Document",
    "DocumentNotFoundError",
    "Draft",
    "DuplicateContentError",
    "Hit",
    "IngestReport",
    "Memory",
    "MemoryConfig",
    "MemoryStoreError",
    "Source",
    "Stats",
    "__version__",
    "ingest",
]
