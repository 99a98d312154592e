"""The memory tool's output: compact XML-like blocks, their text framed as data.

Attribute values are XML-escaped (`&`, `<`, `>`, `"`); document text is shown as stored,
except that any tag named like the blocks' own (`<memory`, `</memory_search`, …) gets a
backslash after its `<` (`rho_kernel.escape_tags`), so stored text cannot close its block
and pass itself off as the tool's own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rho_kernel import escape_tags

if TYPE_CHECKING:
    from rho_memory.api import Document, Hit, Stats
    from rho_memory.ingestion import IngestReport

#: The tag names of the tool's blocks.
TAGS = (
    "memory",
    "memory_search",
    "memory_list",
    "memory_delete",
    "memory_stats",
    "memory_ingest",
)

#: How much of a document's text a search hit shows, and a listing entry.
SEARCH_PREVIEW_CHARS = 500
LIST_PREVIEW_CHARS = 200

#: How much of one document `get` shows.
GET_MAX_CHARS = 16_000


def attr(value: object) -> str:
    """A value as XML attribute text."""
    text = str(value)
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def attributes(**values: object) -> str:
    """`name="value"` pairs, skipping None."""
    return " ".join(
        f'{name}="{attr(value)}"' for name, value in values.items() if value is not None
    )


def body_text(text: str, limit: int | None = None) -> str:
    """Stored text, framed-safe, cut to `limit` characters with `...` (or a count for get)."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "..."
    return escape_tags(text, TAGS)


def _tags_line(doc: Document) -> list[str]:
    return [f"  tags: {body_text(', '.join(doc.tags))}"] if doc.tags else []


def stored(doc: Document, *, existing: bool) -> str:
    """The answer to store."""
    head = attributes(
        id=doc.id,
        title=doc.title,
        created_at=doc.created_at,
        content_hash=doc.content_hash,
        status="existing" if existing else "stored",
    )
    lines = [f"<memory {head}>", *_tags_line(doc)]
    if existing:
        lines.append("  note: this exact content was already stored; nothing new was written")
    return "\n".join([*lines, "</memory>"])


def updated(doc: Document) -> str:
    """The answer to update and restore."""
    head = attributes(id=doc.id, title=doc.title, updated_at=doc.updated_at)
    return "\n".join([f"<memory {head}>", *_tags_line(doc), "</memory>"])


def full(doc: Document) -> str:
    """The answer to get: the whole document (up to `GET_MAX_CHARS`)."""
    head = attributes(
        id=doc.id,
        title=doc.title,
        created_at=doc.created_at,
        updated_at=doc.updated_at,
        source=doc.source,
    )
    text = doc.body
    rest = ""
    if len(text) > GET_MAX_CHARS:
        rest = f"\n[{len(text) - GET_MAX_CHARS} more characters not shown]"
        text = text[:GET_MAX_CHARS]
    return "\n".join([f"<memory {head}>", *_tags_line(doc), body_text(text) + rest, "</memory>"])


def _entry(doc: Document, preview: int, snippet: str = "") -> list[str]:
    head = attributes(id=doc.id, title=doc.title, updated_at=doc.updated_at, source=doc.source)
    lines = [f"<memory {head}>", *_tags_line(doc)]
    if snippet and len(doc.body) > preview:
        lines.append(f"  match: {body_text(snippet.replace(chr(10), ' '))}")
    return [*lines, body_text(doc.body, preview), "</memory>"]


def _more(total: int, offset: int, shown: int) -> list[str]:
    after = offset + shown
    return [f"[{total - after} more; read on with offset={after}]"] if total > after else []


def search(query: str, tags: Sequence[str], total: int, offset: int, hits: list[Hit]) -> str:
    """The answer to search: ranked hits, best first."""
    head = attributes(
        query=query or None,
        tags=", ".join(tags) or None,
        total=total,
        returned=len(hits),
        offset=offset,
    )
    lines = [f"<memory_search {head}>"]
    for hit in hits:
        lines += _entry(hit.document, SEARCH_PREVIEW_CHARS, hit.snippet)
    if not hits:
        lines.append("no matches" if total == 0 else "no matches at this offset")
    return "\n".join([*lines, *_more(total, offset, len(hits)), "</memory_search>"])


def listing(total: int, offset: int, docs: list[Document]) -> str:
    """The answer to list: the most recently updated documents first."""
    lines = [f"<memory_list {attributes(total=total, returned=len(docs), offset=offset)}>"]
    for doc in docs:
        lines += _entry(doc, LIST_PREVIEW_CHARS)
    if not docs:
        lines.append("the knowledge base is empty" if total == 0 else "nothing at this offset")
    return "\n".join([*lines, *_more(total, offset, len(docs)), "</memory_list>"])


def deleted(id: str, done: bool) -> str:
    """The answer to delete."""
    return f"<memory_delete {attributes(id=id, deleted=str(done).lower())} />"


def stats(numbers: Stats) -> str:
    """The answer to stats."""
    head = attributes(
        documents=numbers.documents,
        deleted=numbers.deleted,
        bytes=numbers.bytes,
        schema_version=numbers.schema_version,
    )
    return f"<memory_stats {head} />"


def ingested(path: str, report: IngestReport) -> str:
    """The answer to ingest: counts in files, then each skipped file and why."""
    counts = report.to_dict()
    head = attributes(
        path=path,
        **{key: counts[key] for key in ("files", "added", "updated", "unchanged", "removed")},
        documents=counts["documents"],
    )
    lines = [f"<memory_ingest {head}>"]
    lines += [
        f"  skipped {body_text(item['path'])}: {item['reason']}" for item in counts["skipped"]
    ]
    if counts["truncated"]:
        lines.append("  stopped at the file limit: ingest a narrower path for the rest")
    return "\n".join([*lines, "</memory_ingest>"])


__all__ = [
    "GET_MAX_CHARS",
    "LIST_PREVIEW_CHARS",
    "SEARCH_PREVIEW_CHARS",
    "TAGS",
    "attr",
    "attributes",
    "body_text",
    "deleted",
    "full",
    "ingested",
    "listing",
    "search",
    "stats",
    "stored",
    "updated",
]
