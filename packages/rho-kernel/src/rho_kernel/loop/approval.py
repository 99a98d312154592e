"""Approval requests, decisions and the gate role a plugin (e.g. the RPC host) fills."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from rho_kernel.tools.base import Risk

if TYPE_CHECKING:
    from rho_kernel.approvals.escalation import Escalation
    from rho_kernel.approvals.suggest import SuggestedRule
    from rho_kernel.confinement.state import SandboxStatus


def new_approval_id() -> str:
    """A fresh approval id (`ap_` and 12 hex digits), unique within a process."""
    return f"ap_{secrets.token_hex(6)}"


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A tool call waiting for a human decision.

    `arguments` is the canonical JSON of exactly the arguments that will run (after decoding
    and any rewrite by a `rho_before_tool_call` plugin), not the model's raw text.
    `approval_id` names this one request: a decision is valid for it and for nothing else.
    `sandbox` (for a tool that starts processes) is how they will be confined; its
    `pending_writable` paths are granted by approving. `turn_id` names the turn asking.
    `suggested_rules` are the approval rules an approval may ask to remember, `escalation`
    what the call asks to leave the sandbox for, and why, `working_directory` where a
    command (of a tool matched on its command) starts, and `preview` the redacted diff of
    the change a file tool will make if approved, and `reason` why a plugin asks (a
    `Permission("ask", reason)`; all added in 0.3).
    """

    tool: str
    arguments: str
    risk: Risk
    call_id: str
    approval_id: str = field(default_factory=new_approval_id)
    sandbox: SandboxStatus | None = None
    turn_id: str | None = None
    suggested_rules: tuple[SuggestedRule, ...] = ()
    escalation: Escalation | None = None
    working_directory: str | None = None
    preview: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """The gate's answer: approve, deny (`message`: why, when it was not the user), redirect
    with new instructions (`message`), or
    cancel the turn because no answer can come (`message` says why, e.g. the client went
    away): the call and the rest of its batch are recorded as cancelled and no further model
    request is made. An approval may `remember` one of the request's `suggested_rules`, so
    that the calls it covers run without asking from then on (added in 0.3)."""

    kind: Literal["approved", "denied", "redirect", "cancelled"]
    message: str | None = None
    remember: SuggestedRule | None = None

    @classmethod
    def approved(cls, remember: SuggestedRule | None = None) -> ApprovalDecision:
        """Run the call; and remember the rule `remember` (one of the request's suggested
        rules) when given."""
        return cls("approved", remember=remember)

    @classmethod
    def denied(cls, reason: str | None = None) -> ApprovalDecision:
        """Refuse the call; `reason` (told to the model) when no user made the decision."""
        return cls("denied", reason)

    @classmethod
    def redirect(cls, message: str) -> ApprovalDecision:
        return cls("redirect", message)

    @classmethod
    def cancelled(cls, reason: str) -> ApprovalDecision:
        """No decision will come (`reason`, e.g. "the client went away"): end the turn."""
        return cls("cancelled", reason)


class ApprovalGate(Protocol):
    """Asks a human (or a script) whether a tool call may run."""

    async def request(self, request: ApprovalRequest) -> ApprovalDecision: ...


__all__ = ["ApprovalDecision", "ApprovalGate", "ApprovalRequest", "new_approval_id"]
