"""The terminal's approval question says how the call's processes would run, and the gate
without a terminal says why a command that nothing could confine did not run."""

from __future__ import annotations

import io

from rich.console import Console

from rho_kernel import ApprovalRequest, Risk
from rho_kernel.confinement import SandboxStatus
from rho_rpc.execute.gates import UNCONFINED_NO_TERMINAL, NoTerminalGate
from rho_rpc.execute.screen import ask


def _request(sandbox: SandboxStatus | None) -> ApprovalRequest:
    return ApprovalRequest(
        tool="run_command",
        arguments='{"command": "make"}',
        risk=Risk.DESTRUCTIVE,
        call_id="c1",
        sandbox=sandbox,
    )


def _shown(sandbox: SandboxStatus | None) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    ask(console, _request(sandbox), lambda prompt: "n")
    return out.getvalue()


def test_the_question_says_whether_the_command_would_run_confined() -> None:
    confined = SandboxStatus("confined", backend="landlock")
    assert "sandbox: confined (landlock, no network)" in _shown(confined)
    unconfined = SandboxStatus("unconfined", problem="none", fix="install", asks=True)
    said = _shown(unconfined)
    assert "sandbox: unconfined: no OS sandbox works here (every command asks)" in said
    assert "sandbox:" not in _shown(None)  # a call that starts no process


async def test_without_a_terminal_an_unconfinable_command_is_denied_saying_why() -> None:
    said: list[str] = []
    gate = NoTerminalGate(said.append)
    status = SandboxStatus(
        "unconfined", problem="bubblewrap is missing", fix="install it", asks=True
    )
    decision = await gate.request(_request(status))
    assert decision.kind == "denied" and decision.message == UNCONFINED_NO_TERMINAL
    assert "no OS sandbox works here" in said[0] and "--no-sandbox" in said[0]
    assert "bubblewrap is missing" in said[0] and "install it" in said[0]
    plain = await gate.request(_request(SandboxStatus("confined", backend="bubblewrap")))
    assert plain.kind == "denied" and plain.message != UNCONFINED_NO_TERMINAL
