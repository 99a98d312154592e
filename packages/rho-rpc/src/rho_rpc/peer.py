"""The connected client as the agent sees it: notifications out, approvals in."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rho_kernel import Observer, Risk, ToolResult
from rho_rpc import render

if TYPE_CHECKING:  # the loop's result and approval types: only a prompt needs their modules
    from rho_kernel import (
        AgentResult,
        ApprovalDecision,
        ApprovalRequest,
        ContextCompacted,
        ProviderFailure,
        RequestUsage,
        SuggestedRule,
        UsageContext,
    )

Notify = Callable[[str, dict[str, Any] | None], None]


#: Why a call waiting for approval is cancelled when the client's input ends.
CLIENT_GONE = "the client went away (its input ended) before answering the approval request"


class ApprovalMismatch(Exception):
    """An `approvalResponse` named no pending approval; the message says which is pending."""


class RememberRefused(Exception):
    """An `approvalResponse` asked to remember a rule its request did not offer (or with a
    denial); the approval stays pending, and the message says what may be remembered."""


class RpcPeer(Observer):
    """Turns loop events into notifications and is the approval gate of RPC mode.

    Each `approval/request` carries a fresh `approvalId` and waits for the `approvalResponse`
    that names it. An answer naming anything else — an approval already answered, cancelled
    by `abort`, or never asked — is refused and decides nothing. Once the input has ended no
    answer can come, so pending and later requests cancel their turn.

    Every notification of a turn carries its `turnId` (the loop passes `turn_id`).
    """

    def __init__(self, notify: Notify) -> None:
        self.notify = notify
        self._pending: dict[str, asyncio.Future[ApprovalDecision]] = {}
        self._offered: dict[str, tuple[SuggestedRule, ...]] = {}
        self.input_closed = False

    # ── approval gate ───────────────────────────────────────────────────────

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask the client; waits for the `approvalResponse` naming this request."""
        from rho_kernel import ApprovalDecision

        if self.input_closed:
            return ApprovalDecision.cancelled(CLIENT_GONE)
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._pending[request.approval_id] = future
        params = render.approval_request(request)
        self._offered[request.approval_id] = request.suggested_rules
        self._event("approval/request", params, request.turn_id)
        try:
            return await future
        finally:
            self._pending.pop(request.approval_id, None)
            self._offered.pop(request.approval_id, None)

    def answer(
        self,
        approval_id: str,
        approved: bool,
        message: str | None,
        remember: tuple[str, str] | None = None,
    ) -> None:
        """Resolve the approval named `approval_id`, remembering the offered rule `remember`
        (scope, rule) with an approval; `ApprovalMismatch` when it is not pending,
        `RememberRefused` when that rule was not offered."""
        future = self._pending.get(approval_id)
        if future is None or future.done():
            pending = ", ".join(repr(key) for key in self._pending) or "none"
            raise ApprovalMismatch(
                f"approval {approval_id!r} is not pending (pending: {pending}); "
                "nothing was approved or denied"
            )
        from rho_kernel import ApprovalDecision

        kept = self._remembered(approval_id, approved, remember)
        if approved:
            future.set_result(ApprovalDecision.approved(remember=kept))
        elif message:
            future.set_result(ApprovalDecision.redirect(message))
        else:
            future.set_result(ApprovalDecision.denied())

    def _remembered(
        self, approval_id: str, approved: bool, remember: tuple[str, str] | None
    ) -> SuggestedRule | None:
        if remember is None:
            return None
        if not approved:
            raise RememberRefused("remember goes with approved: true; nothing was decided")
        offered = self._offered.get(approval_id, ())
        for suggested in offered:
            if (suggested.scope, suggested.rule) == remember:
                return suggested
        shown = "; ".join(f"{s.rule} ({s.scope})" for s in offered) or "none"
        raise RememberRefused(
            f"remember: {remember[1]!r} ({remember[0]}) is not one of this request's "
            f"suggestedRules ({shown}); nothing was decided"
        )

    def close_input(self) -> None:
        """Input ended: no answer can come, so whatever is pending and everything asked from
        now on cancels its turn (the call is recorded as cancelled, not denied)."""
        self.input_closed = True
        for future in list(self._pending.values()):
            if not future.done():
                from rho_kernel import ApprovalDecision

                future.set_result(ApprovalDecision.cancelled(CLIENT_GONE))

    # ── observer ────────────────────────────────────────────────────────────

    def _event(self, method: str, params: dict[str, Any], turn_id: str | None) -> None:
        """Send a notification of a turn: with its `turnId` when it belongs to one."""
        if turn_id is not None:
            params["turnId"] = turn_id
        self.notify(method, params)

    async def on_agent_start(self, turn_id: str | None = None) -> None:
        self._event("agent/start", {}, turn_id)

    async def on_state_change(self, state: str, turn_id: str | None = None) -> None:
        self._event("state/change", {"state": state}, turn_id)

    async def on_text_delta(self, delta: str, turn_id: str | None = None) -> None:
        self._event("message/delta", {"delta": delta}, turn_id)

    async def on_reasoning_delta(self, delta: str, turn_id: str | None = None) -> None:
        self._event("reasoning/delta", {"delta": delta}, turn_id)

    async def on_tool_call(
        self, name: str, arguments: str, call_id: str | None = None, turn_id: str | None = None
    ) -> None:
        params = {"callId": call_id, "name": name, "arguments": arguments}
        self._event("tool/call", params, turn_id)

    async def on_tool_denied(
        self, name: str, call_id: str | None = None, turn_id: str | None = None
    ) -> None:
        self._event("tool/denied", {"callId": call_id, "name": name}, turn_id)

    async def on_tool_approved(
        self,
        name: str,
        rule: str,
        source: str,
        call_id: str | None = None,
        turn_id: str | None = None,
    ) -> None:
        params = {"callId": call_id, "name": name, "approvedBy": rule, "source": source}
        self._event("tool/approved", params, turn_id)

    async def on_tool_output(
        self,
        name: str,
        stream: str,
        text: str,
        call_id: str | None = None,
        turn_id: str | None = None,
    ) -> None:
        params = {"callId": call_id, "name": name, "stream": stream, "text": text}
        self._event("tool/output", params, turn_id)

    async def on_tool_result(
        self,
        name: str,
        result: ToolResult,
        call_id: str | None = None,
        full_output: str | None = None,
        turn_id: str | None = None,
    ) -> None:
        params: dict[str, Any] = {
            "callId": call_id,
            "name": name,
            "is_error": result.is_error,
            "output": result.output,
        }
        if full_output is not None:  # as the session keeps it (see getMessages)
            size = len(full_output.encode("utf-8", "surrogatepass"))
            params["details"] = {"FullOutput": {"original_size": size, "content": full_output}}
        self._event("tool/result", params, turn_id)

    async def on_usage(
        self,
        iteration: int,
        usage: RequestUsage,
        context: UsageContext,
        turn_id: str | None = None,
    ) -> None:
        self._event("usage", render.usage_params(iteration, usage, context), turn_id)

    async def on_retry(
        self,
        attempt: int,
        max_attempts: int,
        delay: float,
        reason: str,
        turn_id: str | None = None,
    ) -> None:
        params = {
            "attempt": attempt,
            "maxAttempts": max_attempts,
            "delayMs": round(delay * 1000),
            "reason": reason,
        }
        self._event("agent/retry", params, turn_id)

    async def on_context_compacted(
        self, compaction: ContextCompacted, turn_id: str | None = None
    ) -> None:
        self._event("context/compacted", render.context_compacted(compaction), turn_id)

    async def on_agent_end(self, result: AgentResult) -> None:
        self.notify("agent/end", render.agent_result(result))

    async def on_agent_error(
        self, error: str, failure: ProviderFailure | None = None, turn_id: str | None = None
    ) -> None:
        params: dict[str, Any] = {"error": error}
        if failure is not None:
            params["failure"] = render.provider_failure(failure)
        self._event("agent/error", params, turn_id)

    async def on_approval_requested(
        self, name: str, arguments: str, risk: Risk, call_id: str | None = None
    ) -> None:
        """Sent by `request` instead, so that a gate-less run sends nothing."""


__all__ = ["CLIENT_GONE", "ApprovalMismatch", "RpcPeer"]
