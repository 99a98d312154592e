"""The `memory` tool's parameters: the JSON Schema the model sees and the model that checks
a call's arguments against it (with the per-operation required fields)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: The operations that only read, and those that write.
READ_OPERATIONS = ("search", "get", "list", "stats")
WRITE_OPERATIONS = ("store", "update", "delete", "restore", "ingest")

Operation = Literal[
    "search", "get", "list", "stats", "store", "update", "delete", "restore", "ingest"
]

#: Bounds on what one call may store.
MAX_TITLE_CHARS = 300
MAX_CONTENT_CHARS = 64_000
MAX_TAGS = 20
MAX_TAG_CHARS = 64

#: What each operation needs.
REQUIRED: dict[str, tuple[str, ...]] = {
    "store": ("title", "content"),
    "get": ("id",),
    "update": ("id",),
    "delete": ("id",),
    "restore": ("id",),
}


def _text(description: str, max_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description}
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operation": {
            "type": "string",
            "enum": [*READ_OPERATIONS, *WRITE_OPERATIONS],
            "description": "What to do; each operation names the parameters it uses.",
        },
        "query": _text(
            'search: words to find (FTS5 syntax works: "a phrase", a OR b, pre*, title:x).'
        ),
        "tags": {
            "type": "array",
            "items": {"type": "string", "maxLength": MAX_TAG_CHARS},
            "maxItems": MAX_TAGS,
            "description": "store/update: the document's tags; search: only documents with "
            "every one of these tags.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "default": 10,
            "description": "search/list: how many documents to return.",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "search/list: how many to skip (for the next page).",
        },
        "id": _text("get/update/delete/restore: the document id (from store, search or list)."),
        "title": _text("store: a short title saying what the document is about.", MAX_TITLE_CHARS),
        "content": _text("store: the text to keep.", MAX_CONTENT_CHARS),
        "new_title": _text("update: the new title.", MAX_TITLE_CHARS),
        "new_content": _text("update: the new text.", MAX_CONTENT_CHARS),
        "path": _text(
            "ingest: a Markdown/text file or folder in the project (default: the whole project)."
        ),
    },
    "required": ["operation"],
}


class MemoryArguments(BaseModel):
    """A call's arguments, checked against `PARAMETERS` (an argument it does not name is
    refused)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    operation: Operation
    query: str = ""
    tags: list[str] | None = Field(default=None, max_length=MAX_TAGS)
    limit: int = Field(default=10, ge=1, le=50)
    offset: int = Field(default=0, ge=0, le=1_000_000)
    id: str | None = None
    title: str | None = Field(default=None, max_length=MAX_TITLE_CHARS)
    content: str | None = Field(default=None, max_length=MAX_CONTENT_CHARS)
    new_title: str | None = Field(default=None, max_length=MAX_TITLE_CHARS)
    new_content: str | None = Field(default=None, max_length=MAX_CONTENT_CHARS)
    path: str = "."


class ArgumentProblem(Exception):
    """The arguments do not fit the operation (the message says how)."""


def parse_arguments(raw: dict[str, Any]) -> MemoryArguments:
    """Checked arguments, or `ArgumentProblem` naming every field that is wrong or missing."""
    try:
        args = MemoryArguments.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in item['loc']) or 'arguments'}: {item['msg']}"
            for item in exc.errors()
        ]
        raise ArgumentProblem("; ".join(problems)) from None
    missing = [name for name in REQUIRED.get(args.operation, ()) if getattr(args, name) is None]
    if missing:
        raise ArgumentProblem(f"{args.operation} needs {' and '.join(missing)}")
    if args.tags is not None and any(len(tag) > MAX_TAG_CHARS for tag in args.tags):
        raise ArgumentProblem(f"tags: each tag is at most {MAX_TAG_CHARS} characters")
    return args


__all__ = [
    "PARAMETERS",
    "READ_OPERATIONS",
    "REQUIRED",
    "WRITE_OPERATIONS",
    "ArgumentProblem",
    "MemoryArguments",
    "Operation",
    "parse_arguments",
]
