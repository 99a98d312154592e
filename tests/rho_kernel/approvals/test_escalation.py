"""What a call asks to leave the sandbox for: only tools that start processes and declare the
parameter offer it, and a request without a known kind or a justification is refused."""

from __future__ import annotations

from typing import Any

import pytest

from rho_kernel.approvals.escalation import (
    MAX_JUSTIFICATION_CHARS,
    Escalation,
    EscalationError,
    offers_escalation,
    requested_escalation,
)
from rho_kernel.tools.base import Tool


class _Tool(Tool):
    def __init__(self, runs_processes: bool, properties: dict[str, Any]) -> None:
        self.name = "t"
        self.runs_processes = runs_processes
        self.parameters = {"type": "object", "properties": properties}


OFFERS = _Tool(True, {"command": {}, "sandbox": {}, "justification": {}})


def test_only_a_process_tool_that_declares_sandbox_offers_it() -> None:
    assert offers_escalation(OFFERS)
    assert not offers_escalation(_Tool(False, {"sandbox": {}}))
    assert not offers_escalation(_Tool(True, {"command": {}}))
    assert requested_escalation(_Tool(True, {"command": {}}), {"sandbox": "unconfined"}) is None


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"command": "x"}, None),
        ({"sandbox": None}, None),
        ({"sandbox": "network", "justification": " registry "}, Escalation("network", "registry")),
        (
            {"sandbox": "unconfined", "justification": "y" * 5000},
            Escalation("unconfined", "y" * MAX_JUSTIFICATION_CHARS),
        ),
    ],
)
def test_what_a_call_asks(arguments: dict[str, Any], expected: Escalation | None) -> None:
    assert requested_escalation(OFFERS, arguments) == expected


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"sandbox": "root"}, 'must be "network" or "unconfined"'),
        ({"sandbox": ["network"]}, 'must be "network" or "unconfined"'),
        ({"sandbox": "network"}, "needs a justification"),
        ({"sandbox": "network", "justification": "   "}, "needs a justification"),
        ({"sandbox": "network", "justification": 3}, "needs a justification"),
    ],
)
def test_a_malformed_request_is_refused_with_a_reason(
    arguments: dict[str, Any], problem: str
) -> None:
    with pytest.raises(EscalationError, match=problem):
        requested_escalation(OFFERS, arguments)
