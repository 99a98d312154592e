"""The session-tree methods: `getTree`, `branchTo`, `forkSession` and `setLabel`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import Params, Result, Wire


class GetTreeParams(Params):
    """`getTree`: a page of the session tree, entries in the order they were appended."""

    offset: int = Field(0, ge=0, description="Index of the first entry of the page.")
    limit: int = Field(200, ge=1, le=500, description="The most entries in the page (≤ 500).")


class TreeNodeInfo(Wire):
    """One entry of the session tree."""

    id: str
    parentId: str | None = Field(
        description="The parent entry; null for a root (an unreadable entry in between is "
        "passed over, and an entry whose parent is missing is a root)."
    )
    kind: Literal[
        "message",
        "compaction",
        "branchSummary",
        "modelChange",
        "label",
        "sessionInfo",
        "leafMoved",
        "custom",
        "sessionEnded",
        "customMessage",
        "unknown",
    ]
    role: Literal["system", "user", "assistant", "tool"] | None = Field(
        description="The message role, for a message entry."
    )
    preview: str = Field(description="One line, at most 120 characters.")
    resolution: Literal[
        "full", "outlined", "summarized", "pinned", "compacted", "attached", "unknown"
    ]
    label: str | None = Field(description="The entry's label (setLabel), if any.")
    timestampSecs: int = Field(description="When the entry was appended (Unix seconds).")
    onPath: bool = Field(description="Whether the entry is on the path from a root to the leaf.")
    marks: dict[str, str | int | float | bool] | None = Field(
        None,
        description="What a plugin marked its Custom entry with, e.g. rho-checkpoints' "
        '`{"filesChanged": 3}` on the checkpoint that ended a turn which changed 3 files.',
    )


class GetTreeResult(Result):
    """`getTree` result."""

    sessionId: str
    leafId: str | None = Field(description="The entry the conversation continues from.")
    total: int = Field(description="Entries in the whole tree.")
    offset: int
    nextOffset: int | None = Field(description="The offset of the next page; null at the end.")
    entries: list[TreeNodeInfo]


class BranchToParams(Params):
    """`branchTo`: continue the conversation from an earlier entry."""

    entryId: str = Field(min_length=1, description="The entry to continue from (getTree).")
    summarize: bool = Field(
        False,
        description="Record a summary of the branch left behind, as a BranchSummary entry "
        "after the target that the model sees.",
    )
    summary: str | None = Field(
        None,
        max_length=4000,
        description="A note of the client's own to keep in that summary (implies summarize).",
    )
    restoreFiles: bool = Field(
        False,
        description="Also return the project's files to how they were at the entry "
        "(rho-checkpoints, with [checkpoints] enabled; see docs/checkpoints.md). A file "
        "someone else changed since stops it all: -32022 names the files and neither the "
        "files nor the branch change.",
    )


class RestoredFile(Wire):
    """A file a restore changed back."""

    path: str = Field(description="Relative to the project root.")
    status: str = Field(description="added, modified or deleted since the entry.")
    action: Literal["deleted", "restored", "recreated"] = Field(
        description="What the restore did to the file: deleted it (it was added since), "
        "restored its content and mode (modified since), or recreated it (deleted since)."
    )


class BranchToResult(Result):
    """`branchTo` result."""

    leafId: str = Field(
        description="The new leaf: the target, the last failed result rho added for its "
        "unanswered tool calls, or the summary entry."
    )
    summaryId: str | None = Field(description="The BranchSummary entry, when one was written.")
    abandonedCount: int = Field(
        description="Entries of the old path that are not on the new one (they stay in the tree)."
    )
    closedCalls: int = Field(
        description="Tool calls on the new path that had no result and got a failed one "
        "(`Tool call cancelled.`), so the next request is valid."
    )
    restored: list[RestoredFile] | None = Field(
        None, description="With restoreFiles: the files changed back."
    )


class ForkSessionParams(Params):
    """`forkSession`: continue in a new session that starts as a copy of a path."""

    entryId: str | None = Field(
        None, min_length=1, description="The last entry to copy; the leaf when omitted."
    )


class ForkSessionResult(Result):
    """`forkSession` result: rho now works in the fork."""

    sessionId: str
    path: str = Field(description='The fork\'s session file; "" for an in-memory session.')
    parentSession: str = Field(
        description="What the fork's header names as its parent: the parent's session file, "
        "or its id for an in-memory session."
    )
    entryCount: int
    leafId: str | None
    closedCalls: int = Field(
        description="Tool calls of the copied path that had no result and got a failed one "
        "in the fork (`Tool call cancelled.`), so the next request is valid."
    )


class SetLabelParams(Params):
    """`setLabel`: label (bookmark) an entry, or remove its label."""

    entryId: str = Field(min_length=1, description="The entry to label.")
    label: str | None = Field(
        max_length=200,
        description="The label: one line of at most 200 characters, without control "
        "characters. null or blank removes it. Required, so that a misspelt member cannot "
        "remove a label.",
    )


class SetLabelResult(Result):
    """`setLabel` result."""

    entryId: str
    label: str | None


__all__ = [
    "BranchToParams",
    "BranchToResult",
    "ForkSessionParams",
    "ForkSessionResult",
    "GetTreeParams",
    "GetTreeResult",
    "SetLabelParams",
    "SetLabelResult",
    "TreeNodeInfo",
]
