"""Sessions: the append-only tree of entries a conversation keeps, as a tool reads it
(`ToolContext.session`) and a front end shows it. Public since rho-kernel 0.3.

`Session` is the live session (`path_entries()` is the path from the root to the leaf,
`entries` every entry by id, `leaf_id` the current leaf; `append_custom` adds a plugin's own
typed entry, kind `<author>.<feature>.v<n>`, and `read_custom` reads the latest back;
`set_resolution` pins or unpins an entry). Each `Entry` carries a `Payload` (a message, a
compaction, a branch summary, a custom entry, a model change, …) and a `Resolution` (how the
context shows it: `Full`, `Outlined`, `Summarized`, `Pinned`, `Attached`, `Compacted`).
`tree_page` and `TreeNode` give the tree for display, `summarize_branch` a branch's summary,
`ContextStats` and `warm_estimates` the figures of the context (by `ROLES`, `RESOLUTIONS` and
`PHASES`), and `list_sessions`, `find_session`, `find_latest_session` and `SessionInfo` the
project's session files. Every other module under `rho_kernel.session` is internal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.session.branching import summarize_branch
    from rho_kernel.session.discovery import (
        SessionInfo,
        SessionNotFound,
        find_latest_session,
        find_session,
        list_sessions,
    )
    from rho_kernel.session.entries import (
        ATTACHED,
        FULL,
        PINNED,
        Attached,
        BranchSummaryPayload,
        Compacted,
        CompactionPayload,
        CompactionPhase,
        CompactionSummary,
        CustomMessagePayload,
        CustomPayload,
        Entry,
        Full,
        Header,
        LabelPayload,
        LeafMovedPayload,
        MessagePayload,
        ModelChangePayload,
        Outlined,
        Payload,
        Pinned,
        Resolution,
        SessionEndedPayload,
        SessionError,
        SessionInfoPayload,
        Summarized,
        TimeSpan,
        Timestamp,
        UnknownPayload,
        UnknownResolution,
    )
    from rho_kernel.session.stats import PHASES, RESOLUTIONS, ROLES, ContextStats, warm_estimates
    from rho_kernel.session.store import CANCELLED_TOOL_CALL, CUSTOM_KIND, Session
    from rho_kernel.session.tree import TreeNode, TreePage, tree_page

_ORIGIN = exports_of(
    {
        "rho_kernel.session.branching": ("summarize_branch",),
        "rho_kernel.session.discovery": (
            "SessionInfo",
            "SessionNotFound",
            "find_latest_session",
            "find_session",
            "list_sessions",
        ),
        "rho_kernel.session.entries": (
            "ATTACHED",
            "FULL",
            "PINNED",
            "Attached",
            "BranchSummaryPayload",
            "Compacted",
            "CompactionPayload",
            "CompactionPhase",
            "CompactionSummary",
            "CustomMessagePayload",
            "CustomPayload",
            "Entry",
            "Full",
            "Header",
            "LabelPayload",
            "LeafMovedPayload",
            "MessagePayload",
            "ModelChangePayload",
            "Outlined",
            "Payload",
            "Pinned",
            "Resolution",
            "SessionEndedPayload",
            "SessionError",
            "SessionInfoPayload",
            "Summarized",
            "TimeSpan",
            "Timestamp",
            "UnknownPayload",
            "UnknownResolution",
        ),
        "rho_kernel.session.stats": (
            "PHASES",
            "RESOLUTIONS",
            "ROLES",
            "ContextStats",
            "warm_estimates",
        ),
        "rho_kernel.session.store": ("CANCELLED_TOOL_CALL", "CUSTOM_KIND", "Session"),
        "rho_kernel.session.tree": ("TreeNode", "TreePage", "tree_page"),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "ATTACHED",
    "CANCELLED_TOOL_CALL",
    "CUSTOM_KIND",
    "FULL",
    "PHASES",
    "PINNED",
    "RESOLUTIONS",
    "ROLES",
    "Attached",
    "BranchSummaryPayload",
    "Compacted",
    "CompactionPayload",
    "CompactionPhase",
    "CompactionSummary",
    "ContextStats",
    "CustomMessagePayload",
    "CustomPayload",
    "Entry",
    "Full",
    "Header",
    "LabelPayload",
    "LeafMovedPayload",
    "MessagePayload",
    "ModelChangePayload",
    "Outlined",
    "Payload",
    "Pinned",
    "Resolution",
    "Session",
    "SessionEndedPayload",
    "SessionError",
    "SessionInfo",
    "SessionInfoPayload",
    "SessionNotFound",
    "Summarized",
    "TimeSpan",
    "Timestamp",
    "TreeNode",
    "TreePage",
    "UnknownPayload",
    "UnknownResolution",
    "find_latest_session",
    "find_session",
    "list_sessions",
    "summarize_branch",
    "tree_page",
    "warm_estimates",
]
