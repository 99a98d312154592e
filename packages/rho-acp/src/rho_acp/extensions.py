"""rho's own ACP methods, for what ACP has no method for (advertised under
`agentCapabilities._meta.rho.methods`):

- `_rho/steer` `{sessionId, message}` → `{queued}`: a message for the running prompt, taken
  in at its next tool-batch seam (as `prompt` with `steer: true` in rho's JSON-RPC);
- `_rho/tree` `{sessionId}` → `{leafId, entries: [{id, parentId, kind, role?, text?,
  label?}]}`: the session's whole tree, every branch (`kind`, `parentId` and `label` as
  JSON-RPC's `getTree` gives them: `message`, `compaction`, `branchSummary`, …);
- `_rho/branchTo` `{sessionId, entryId}` → `{leafId}`: continue from an earlier entry (the
  abandoned branch stays in the tree);
- `_rho/compact` `{sessionId, strategy?}` → `{compacted, strategy, reason}`: fold older turns
  into a summary now;
- `_rho/restore` `{sessionId, entryId? | undo: true, paths?, force?}` → `{restored: [{path,
  status, action}], conflicts, reasons}`: return the project's files to how they were at an entry, or undo the
  last restore (with rho-checkpoints installed and on; see docs/checkpoints.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from acp import RequestError

if TYPE_CHECKING:
    from rho_acp.session import AcpSession

#: The longest text of an entry `_rho/tree` shows.
MAX_ENTRY_TEXT = 200
#: Entries read at a time.
TREE_PAGE = 500

Handler = Callable[["AcpSession", dict[str, Any]], Awaitable[dict[str, Any]]]


def _text_param(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value.strip():
        raise RequestError.invalid_params({"message": f"{name}: give a non-empty string"})
    return value


async def steer(session: AcpSession, params: dict[str, Any]) -> dict[str, Any]:
    """Queue a message for the running prompt (`queued` false: none runs)."""
    return {"queued": session.runtime.steer(_text_param(params, "message"))}


def _entry(node: Any, entry: Any) -> dict[str, Any]:
    """One entry as `_rho/tree` shows it: `kind` (and the parent, and the label) as
    JSON-RPC's `getTree` gives them, the message's role and text for a message."""
    shown: dict[str, Any] = {"id": node.id, "parentId": node.parent_id, "kind": node.kind}
    message = getattr(entry.payload, "message", None)
    if message is not None:
        shown["role"] = message.role
        text = message.text
        shown["text"] = text if len(text) <= MAX_ENTRY_TEXT else text[: MAX_ENTRY_TEXT - 1] + "…"
    if node.label is not None:
        shown["label"] = node.label
    return shown


async def tree(session: AcpSession, params: dict[str, Any]) -> dict[str, Any]:
    """Every entry of the session's tree, in the order they were written."""
    from rho_kernel.session import tree_page

    stored = session.runtime.session
    shown: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:  # the pages of getTree, one after the other
        page = tree_page(stored, offset, TREE_PAGE)
        shown.extend(_entry(node, stored.entries[node.id]) for node in page.nodes)
        offset = page.next_offset
    return {"leafId": stored.leaf_id, "entries": shown}


async def branch_to(session: AcpSession, params: dict[str, Any]) -> dict[str, Any]:
    """Continue the conversation from entry `entryId`."""
    entry_id = _text_param(params, "entryId")
    runtime = session.runtime
    if runtime.busy:
        raise RequestError.invalid_params({"message": "a prompt is running; cancel it first"})
    if entry_id not in runtime.session.entries:
        raise RequestError.invalid_params({"message": f"entryId: no entry {entry_id!r}"})
    runtime.session.branch_to(entry_id)
    return {"leafId": runtime.session.leaf_id}


async def compact(session: AcpSession, params: dict[str, Any]) -> dict[str, Any]:
    """Fold older turns into a summary now (`strategy` as `[agent] compaction_mode` names)."""
    strategy = params.get("strategy")
    if strategy is not None and not isinstance(strategy, str):
        raise RequestError.invalid_params({"message": "strategy: give a strategy's name"})
    runtime = session.runtime
    if runtime.busy:
        raise RequestError.invalid_params({"message": "a prompt is running; cancel it first"})
    outcome = await runtime.compact(strategy)
    return {"compacted": outcome.compacted, "strategy": outcome.strategy, "reason": outcome.reason}


def _restore_params(params: dict[str, Any]) -> dict[str, Any]:
    entry_id, paths = params.get("entryId"), params.get("paths")
    if entry_id is not None and not isinstance(entry_id, str):
        raise RequestError.invalid_params({"message": "entryId: give an entry's id"})
    if paths is not None and not (
        isinstance(paths, list) and all(isinstance(p, str) for p in paths)
    ):
        raise RequestError.invalid_params({"message": "paths: give a list of paths"})
    force, undo = params.get("force", False), params.get("undo", False)
    if not isinstance(force, bool) or not isinstance(undo, bool):
        raise RequestError.invalid_params({"message": "force, undo: give true or false"})
    return {"entry_id": entry_id, "paths": paths, "force": force, "undo": undo}


async def restore(session: AcpSession, params: dict[str, Any]) -> dict[str, Any]:
    """Return the files to an entry's point, or undo the last restore (rho-checkpoints)."""
    chosen = _restore_params(params)
    try:
        from rho_checkpoints import CheckpointRequestError, restore_files
    except ImportError:
        raise RequestError.invalid_params(
            {"message": "checkpoints are not installed (the rho-checkpoints pack)"}
        ) from None
    if session.runtime.busy:
        raise RequestError.invalid_params({"message": "a prompt is running; cancel it first"})
    try:
        done = await restore_files(session.runtime, **chosen)
    except CheckpointRequestError as exc:
        raise RequestError.invalid_params({"message": str(exc)}) from None
    restored = [
        {"path": c.path, "status": c.status, "action": c.restore_action} for c in done.restored
    ]
    return {"restored": restored, "conflicts": done.conflicts, "reasons": done.reasons}


#: The methods by name (without the leading `_`).
EXTENSIONS: dict[str, Handler] = {
    "rho/steer": steer,
    "rho/tree": tree,
    "rho/branchTo": branch_to,
    "rho/compact": compact,
    "rho/restore": restore,
}

__all__ = ["EXTENSIONS", "MAX_ENTRY_TEXT", "branch_to", "compact", "restore", "steer", "tree"]
