"""Approval requests, decisions and the gate role a plugin (e.g. the RPC host) fills."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from rho_kernel.tools.base import Risk


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A tool call waiting for a human decision."""

    tool: str
    arguments: str
    risk: Risk
    call_id: str


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """The gate's answer: approve, deny, or redirect with new instructions (`message`)."""

    kind: Literal["approved", "denied", "redirect"]
    message: str | None = None

    @classmethod
    def approved(cls) -> ApprovalDecision:
        return cls("approved")

    @classmethod
    def denied(cls) -> ApprovalDecision:
        return cls("denied")

    @classmethod
    def redirect(cls, message: str) -> ApprovalDecision:
        return cls("redirect", message)


class ApprovalGate(Protocol):
    """Asks a human (or a script) whether a tool call may run."""

    async def request(self, request: ApprovalRequest) -> ApprovalDecision: ...


__all__ = ["ApprovalDecision", "ApprovalGate", "ApprovalRequest"]
