"""`newSession`, `listSessions`, `resumeSession` and `compact`."""

from __future__ import annotations

from pydantic import Field

from rho_rpc.protocol.base import NO_MODEL, Params, Result, Wire


class NewSessionResult(Result):
    """`newSession` result."""

    sessionId: str
    path: str = Field(description='The new session file; "" for an in-memory session.')


class SessionEntry(Wire):
    """A saved session of this project."""

    path: str
    id: str
    mtimeSecs: int
    sizeKb: int
    entryCount: int
    latest: bool = Field(description="The session `rho -c` would resume.")


class ListSessionsParams(Params):
    """`listSessions`: a page of the project's sessions, most recently used first."""

    limit: int = Field(10, ge=1, le=500, description="The most sessions in the page (≤ 500).")
    offset: int = Field(0, ge=0, description="How many of the most recent sessions to pass.")


class ListSessionsResult(Result):
    """`listSessions` result: a page of the project's sessions, most recently used first."""

    sessions: list[SessionEntry]
    nextOffset: int | None = Field(
        description="The offset of the next page; null when this page is the last."
    )


class ResumeSessionParams(Params):
    """`resumeSession`: continue a saved session, named by its file or by its id."""

    path: str | None = Field(
        None, min_length=1, description="Path of the session's .jsonl file (or pass `id`)."
    )
    id: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The session's id as listSessions shows it, or a prefix of it that no "
        "other session of this project shares (or pass `path`).",
    )


class ResumeSessionResult(Result):
    """`resumeSession` result."""

    path: str
    sessionId: str
    model: str | None = Field(description="The model prompts go to; " + NO_MODEL)
    cwd: str
    entryCount: int


class CompactParams(Params):
    """`compact`: fold every turn of the current branch but the last into a summary."""

    strategy: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="The compaction strategy by name (default: [agent] compaction_mode).",
    )


class CompactResult(Result):
    """`compact` result. When `compacted` is false nothing was written and `reason` says why."""

    compacted: bool
    reason: str | None = None
    strategy: str | None = Field(
        None, description='The strategy whose summary was written ("mechanical" after a fallback).'
    )
    requested: str = Field(description="The strategy that was asked for.")
    entriesCompacted: int = 0
    tokensBefore: int = 0
    tokensAfter: int = 0
    summaryId: str | None = Field(None, description="The new Compaction entry.")
    previousLeafId: str | None = Field(
        None, description="The leaf of the branch that was compacted; it stays in the session."
    )


__all__ = [
    "CompactParams",
    "CompactResult",
    "ListSessionsParams",
    "ListSessionsResult",
    "NewSessionResult",
    "ResumeSessionParams",
    "ResumeSessionResult",
    "SessionEntry",
]
