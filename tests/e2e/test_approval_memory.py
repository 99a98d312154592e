"""Remembered approvals through the real `rho` process: an approval may remember one of the
rules its request suggests, for the session (kept in the session file) or the project (kept
under ~/.rho); `listApprovalRules` shows them and `revokeApprovalRule` takes them back."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")


def _command(line: str) -> object:
    return tool_call_reply("run_command", {"command": line})


def _finish_prompt(rho: RhoProcess, prompt_id: Any) -> dict[str, Any]:
    return rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def test_a_session_rule_stops_the_asking_and_a_resumed_session_keeps_it(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_command("echo one 1"), _command("echo one 2"), _command("echo one; echo x"))
    server.add(_command("echo one 3 | cat"), _command("echo onex"), text_reply("done"))
    rho = start_scripted(start_rho, server)
    session_path = rho.seen[0]["params"]["sessionPath"]
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.approve_remembering("session", "run_command(echo one:*)")
    assert {s["rule"] for s in request["suggestedRules"]} == {
        "run_command(echo one 1)",
        "run_command(echo one:*)",
    }
    listed = rho.notification("approval/request")["params"]  # a list still asks,
    assert "echo x" in listed["arguments"] and listed["suggestedRules"] == []
    rho.answer_approval(listed, approved=False)
    piped = rho.notification("approval/request")["params"]  # and a pipeline,
    assert "| cat" in piped["arguments"]
    rho.answer_approval(piped, approved=False)
    longer = rho.notification("approval/request")["params"]  # and a longer word
    assert "echo onex" in longer["arguments"]
    rho.answer_approval(longer, approved=False)
    _finish_prompt(rho, prompt_id)
    approved = [m["params"] for m in rho.seen if m.get("method") == "tool/approved"]
    assert [(a["approvedBy"], a["source"]) for a in approved] == [
        ("run_command(echo one:*)", "session")
    ]
    rules = rho.call("listApprovalRules")["result"]["rules"]
    assert rules == [
        {
            "rule": "run_command(echo one:*)",
            "action": "allow",
            "source": "session",
            "revocable": True,
        }
    ]
    assert rho.finish() == 0
    lines = [json.loads(line) for line in Path(session_path).read_text().splitlines()]
    kinds = [
        line["payload"]["Custom"]["kind"] for line in lines if "Custom" in line.get("payload", {})
    ]
    assert "rho.approval_rules.v1" in kinds and "rho.approved_by.v1" in kinds

    server.add(_command("echo one 3"), text_reply("again"))
    resumed = start_scripted(start_rho, server, "--session", session_path)
    _finish_prompt(resumed, resumed.request("prompt", {"message": "again"}))
    assert "approval/request" not in resumed.methods_seen()
    assert resumed.finish() == 0


def test_a_project_rule_survives_a_restart_until_revoked(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    write = tool_call_reply("write_file", {"path": "docs/a.md", "content": "a"})
    server.add(write, text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    rho.approve_remembering("project", "edit(docs/**)")
    _finish_prompt(rho, prompt_id)
    assert rho.finish() == 0
    store = home / ".rho" / "approval-rules.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert json.loads(store.read_text())["projects"] == {str(project): ["edit(docs/**)"]}
    assert not any(project.rglob("approval-rules*"))  # never in the repository

    server.add(tool_call_reply("write_file", {"path": "docs/b.md", "content": "b"}))
    server.add(text_reply("done"))
    again = start_scripted(start_rho, server, "--ephemeral")
    _finish_prompt(again, again.request("prompt", {"message": "go"}))
    assert "approval/request" not in again.methods_seen()
    assert (project / "docs" / "b.md").read_text() == "b"
    revoked = again.call("revokeApprovalRule", {"rule": "edit(docs/**)", "scope": "project"})
    assert revoked["result"] == {}
    server.add(tool_call_reply("write_file", {"path": "docs/c.md", "content": "c"}))
    prompt_id = again.request("prompt", {"message": "go"})
    request = again.notification("approval/request")["params"]  # asks again
    again.answer_approval(request, approved=False)
    server.add(text_reply("done"))
    _finish_prompt(again, prompt_id)
    missing = again.call("revokeApprovalRule", {"rule": "edit(docs/**)", "scope": "project"})
    assert missing["error"]["code"] == -32602
    assert again.finish() == 0


def test_only_an_offered_rule_is_remembered_and_deny_still_wins(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_command("touch made"), _command("touch made again"), text_reply("done"))
    deny = "run_command(touch made again)"
    rho = start_scripted(start_rho, server, "--ephemeral", "--deny", deny)
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    wide = rho.call(
        "approvalResponse",
        {
            "approvalId": request["approvalId"],
            "approved": True,
            "remember": {"scope": "session", "rule": "run_command"},
        },
    )
    assert (
        wide["error"]["code"] == -32602 and "not one of this request's" in wide["error"]["message"]
    )
    denied = rho.call(
        "approvalResponse",
        {
            "approvalId": request["approvalId"],
            "approved": False,
            "remember": {"scope": "session", "rule": "run_command(touch made:*)"},
        },
    )
    assert denied["error"]["code"] == -32602  # and the approval is still pending
    rho.approve_remembering("session", "run_command(touch made:*)", request)
    _finish_prompt(rho, prompt_id)
    outputs = [m["params"]["output"] for m in rho.seen if m.get("method") == "tool/result"]
    assert outputs[1] == f"Tool call denied by the rule '{deny}' (--deny)."
    assert (project / "made").exists() and not (project / "again").exists()
    listed = rho.call("listApprovalRules")["result"]["rules"]
    assert [(r["action"], r["source"], r["revocable"]) for r in listed] == [
        ("deny", "--deny", False),
        ("allow", "session", True),
    ]
    cli = rho.call("revokeApprovalRule", {"rule": deny, "scope": "session"})
    assert cli["error"]["code"] == -32602
    assert rho.finish() == 0


def test_a_session_file_from_elsewhere_brings_no_rules(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    server.add(_command("echo two 1"), text_reply("done"))
    rho = start_scripted(start_rho, server)
    session_path = Path(rho.seen[0]["params"]["sessionPath"])
    prompt_id = rho.request("prompt", {"message": "go"})
    rho.approve_remembering("session", "run_command(echo two:*)")
    _finish_prompt(rho, prompt_id)
    assert rho.finish() == 0
    shipped = tmp_path / "shipped.jsonl"  # e.g. a session file that came with a repository
    shipped.write_bytes(session_path.read_bytes())

    server.add(_command("echo two 2"))
    resumed = start_scripted(start_rho, server, "--session", str(shipped))
    prompt_id = resumed.request("prompt", {"message": "again"})
    request = resumed.notification("approval/request")["params"]  # its rule is not applied
    resumed.answer_approval(request, approved=False)
    server.add(text_reply("done"))
    _finish_prompt(resumed, prompt_id)
    assert resumed.call("listApprovalRules")["result"]["rules"] == []
    resumed.kill()
    assert "remembered approval rule(s) are not applied" in resumed.stderr_text()
