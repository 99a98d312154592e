"""One-off escalation: a call that asks to leave the OS sandbox once.

A tool that starts processes offers it by declaring two parameters in its schema: `sandbox`
(`"network"`: network access for this call; `"unconfined"`: no sandbox at all for this call)
and `justification` (why). Such a call always asks — whatever the permission mode or the
approval rules — showing both; `[sandbox] allow_escalation = false` refuses it outright.
Approved, it runs that one call escalated; nothing carries over to the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rho_kernel.tools.base import Tool

EscalationKind = Literal["network", "unconfined"]
ESCALATIONS: tuple[EscalationKind, ...] = ("network", "unconfined")
#: The longest justification kept (the rest is cut: it is shown to a person).
MAX_JUSTIFICATION_CHARS = 2000


class EscalationError(ValueError):
    """A call's escalation arguments are wrong; the message says how (for the model)."""


@dataclass(frozen=True, slots=True)
class Escalation:
    """What a call asks: `sandbox` (`"network"` or `"unconfined"`) and why."""

    sandbox: EscalationKind
    justification: str


def offers_escalation(tool: Tool) -> bool:
    """Whether `tool` starts processes and declares the `sandbox` parameter."""
    properties = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    return bool(tool.runs_processes and isinstance(properties, dict) and "sandbox" in properties)


def requested_escalation(tool: Tool, arguments: dict[str, Any]) -> Escalation | None:
    """The escalation a call asks for (None: it runs as configured); raises
    `EscalationError` when it asks one wrongly."""
    if not offers_escalation(tool):
        return None
    sandbox = arguments.get("sandbox")
    if sandbox is None:
        return None
    if sandbox not in ESCALATIONS:
        raise EscalationError(
            f'sandbox must be "network" or "unconfined" (got {str(sandbox)[:40]!r}); leave it '
            "out to run in the sandbox as configured"
        )
    justification = arguments.get("justification")
    if not isinstance(justification, str) or not justification.strip():
        raise EscalationError(
            f'sandbox: "{sandbox}" needs a justification: say why this command must leave the '
            "sandbox (the user is asked, and sees it)"
        )
    return Escalation(sandbox, justification.strip()[:MAX_JUSTIFICATION_CHARS])


__all__ = [
    "ESCALATIONS",
    "MAX_JUSTIFICATION_CHARS",
    "Escalation",
    "EscalationError",
    "EscalationKind",
    "offers_escalation",
    "requested_escalation",
]
