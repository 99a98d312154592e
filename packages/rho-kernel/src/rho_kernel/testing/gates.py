"""Approval gates with fixed answers, for tests."""

from __future__ import annotations

from rho_kernel import ApprovalDecision, ApprovalRequest


class FixedGate:
    """Answers every approval request with the same decision and records the requests."""

    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.decision


def approve_all() -> FixedGate:
    """A gate that approves every call."""
    return FixedGate(ApprovalDecision.approved())


def deny_all() -> FixedGate:
    """A gate that denies every call."""
    return FixedGate(ApprovalDecision.denied())


def redirect_all(message: str) -> FixedGate:
    """A gate that redirects every call with `message`."""
    return FixedGate(ApprovalDecision.redirect(message))


__all__ = ["FixedGate", "approve_all", "deny_all", "redirect_all"]
