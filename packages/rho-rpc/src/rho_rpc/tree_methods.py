"""The session-tree methods: `getTree`, `branchTo`, `forkSession` and `setLabel`.

Entry ids come from `getTree`; an id the session does not hold is invalid params (-32602),
and a session file that cannot be written is an internal error (-32603). The methods that
change the tree run in the serial lane, so they never interleave with a running prompt.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from rho_kernel.rpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from rho_kernel.session import Session, SessionError, summarize_branch, tree_page
from rho_rpc import render
from rho_rpc.protocol.tree import (
    BranchToParams,
    BranchToResult,
    ForkSessionParams,
    ForkSessionResult,
    GetTreeParams,
    GetTreeResult,
    RestoredFile,
    SetLabelParams,
    SetLabelResult,
    TreeNodeInfo,
)

if TYPE_CHECKING:
    from rho_kernel import Runtime

_CONTROL = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _known(session: Session, entry_id: str) -> str:
    if entry_id not in session.entries:
        raise RpcError(
            INVALID_PARAMS, f"Invalid params: entryId: no entry {entry_id!r} in this session"
        )
    return entry_id


def _closed_after(session: Session, entry_id: str | None) -> int:
    """The tool results on the current path after `entry_id`: the failed ones a move onto
    an unanswered call group added (nothing else is appended after the target but a summary)."""
    path = session.path_entries()
    ids = [entry.id for entry in path]
    if entry_id not in ids:
        return 0
    tail = path[ids.index(entry_id) + 1 :]
    return sum(1 for entry in tail if entry.message is not None and entry.message.role == "tool")


def _wire(result: BaseModel) -> dict[str, Any]:
    """The result with its nulls kept: a client reads `parentId: null` as a root."""
    return result.model_dump(mode="json")


def _label_problem(label: str) -> str | None:
    for char in label:
        if unicodedata.category(char) in _CONTROL:
            return f"label: control character U+{ord(char):04X} is not allowed"
    return None


#: The code of a restore that cannot be done (rho-checkpoints' `CHECKPOINT_ERROR`).
RESTORE_ERROR = -32022


async def _restore_files(runtime: Runtime, entry_id: str) -> list[RestoredFile]:
    """The files returned to entry `entry_id` (rho-checkpoints); `RpcError` when they cannot
    be, or someone else changed some of them since (then nothing changed)."""
    try:
        from rho_checkpoints import CHECKPOINT_ERROR, CheckpointRequestError, restore_files
    except ImportError:
        raise RpcError(RESTORE_ERROR, "restoreFiles needs the rho-checkpoints pack") from None
    try:
        done = await restore_files(runtime, entry_id=entry_id)
    except CheckpointRequestError as exc:
        code = INVALID_PARAMS if exc.bad_params else CHECKPOINT_ERROR
        raise RpcError(code, str(exc)) from None
    if done.conflicts:
        raise RpcError(
            CHECKPOINT_ERROR,
            "not restored, nor branched: "
            + "; ".join(done.reasons.get(path, path) for path in done.conflicts)
            + " (restoreFiles with force restores over files changed by someone else)",
        )
    return [
        RestoredFile(path=c.path, status=c.status, action=c.restore_action) for c in done.restored
    ]


class TreeMethods:
    """The tree handlers, bound to a runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def get_tree(self, params: GetTreeParams) -> dict[str, Any]:
        session = self.runtime.session
        page = tree_page(session, params.offset, params.limit)
        return _wire(
            GetTreeResult(
                sessionId=session.id,
                leafId=page.leaf_id,
                total=page.total,
                offset=page.offset,
                nextOffset=page.next_offset,
                entries=[
                    TreeNodeInfo.model_validate(render.tree_node(node)) for node in page.nodes
                ],
            )
        )

    async def branch_to(self, params: BranchToParams) -> dict[str, Any]:
        session = self.runtime.session
        target = _known(session, params.entryId)
        restored = await _restore_files(self.runtime, target) if params.restoreFiles else None
        abandoned = session.abandoned_by(target)
        summarize = (params.summarize or params.summary is not None) and bool(abandoned)
        try:
            if summarize:
                summary = summarize_branch(abandoned, params.summary)
                written = session.branch_with_summary(target, summary)
                summary_id: str | None = written.id
            else:
                session.branch_to(target)
                summary_id = None
        except SessionError as exc:
            raise RpcError(INTERNAL_ERROR, f"branchTo failed: {exc}") from None
        result = BranchToResult(
            leafId=session.leaf_id or target,
            summaryId=summary_id,
            abandonedCount=len(abandoned),
            closedCalls=_closed_after(session, target),
            restored=restored,
        )
        return result.model_dump(mode="json", exclude={"restored"} if restored is None else None)

    async def fork_session(self, params: ForkSessionParams) -> dict[str, Any]:
        runtime = self.runtime
        current = runtime.session
        if params.entryId is not None:
            _known(current, params.entryId)
        try:
            fork = current.fork(params.entryId)
        except SessionError as exc:
            raise RpcError(INTERNAL_ERROR, f"forkSession failed: {exc}") from None
        current.close()
        runtime.session = fork
        return _wire(
            ForkSessionResult(
                sessionId=fork.id,
                path=str(fork.path or ""),
                parentSession=fork.header.parent_session or "",
                entryCount=fork.entry_count,
                leafId=fork.leaf_id,
                closedCalls=_closed_after(fork, params.entryId or current.leaf_id),
            )
        )

    async def set_label(self, params: SetLabelParams) -> dict[str, Any]:
        session = self.runtime.session
        target = _known(session, params.entryId)
        label = params.label.strip() if params.label is not None else None
        if label:
            problem = _label_problem(label)
            if problem is not None:
                raise RpcError(INVALID_PARAMS, f"Invalid params: {problem}")
        try:
            session.set_label(target, label or None)
        except SessionError as exc:
            raise RpcError(INTERNAL_ERROR, f"setLabel failed: {exc}") from None
        return _wire(SetLabelResult(entryId=target, label=label or None))


__all__ = ["TreeMethods"]
