"""Permission modes through the real `rho` process: `--approval-mode`, `[approval] mode`
(a repository may tighten it, loosen it only when trusted) and `setApprovalMode`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

READ_ONLY = (
    'Tool call refused: the approval mode is "read-only", in which only tools that read run. '
    "Describe the change you would make instead, or ask the user to switch modes."
)


def _write(path: str) -> object:
    return tool_call_reply("write_file", {"path": path, "content": path})


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def _run(rho: RhoProcess) -> Any:
    prompt_id = rho.request("prompt", {"message": "go"})
    return rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def test_read_only_refuses_writes_with_a_clear_result_and_still_reads(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / "seen.txt").write_text("visible\n")
    server.add(_write("out.txt"), tool_call_reply("read_file", {"path": "seen.txt"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--approval-mode", "read-only")
    assert rho.call("getState")["result"]["approvalMode"] == "read-only"
    _run(rho)
    refused, read = _results(rho)
    assert (refused["is_error"], refused["output"]) == (True, READ_ONLY)
    assert "visible" in read["output"] and not read["is_error"]
    assert "approval/request" not in rho.methods_seen()
    assert not (project / "out.txt").exists()
    assert rho.finish() == 0


def test_auto_edit_writes_without_asking_and_commands_still_ask(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_write("out.txt"), tool_call_reply("run_command", {"command": "touch ran"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--approval-mode", "auto-edit")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    assert request["tool"] == "run_command"
    assert (project / "out.txt").read_text() == "out.txt"  # written before the command asked
    rho.answer_approval(request, approved=False)
    rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)
    assert not (project / "ran").exists()
    assert rho.finish() == 0


def test_the_mode_can_change_mid_session_and_a_deny_rule_still_wins(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_write("first.txt"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--deny", "write_file(secret*)")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]  # "ask": the write asks
    changed = rho.call("setApprovalMode", {"mode": "auto"})  # answered while the turn waits
    assert changed["result"] == {"mode": "auto"}
    server.add(_write("second.txt"), _write("secret.txt"), text_reply("done"))
    rho.answer_approval(request)
    rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)
    assert [r["is_error"] for r in _results(rho)] == [False, False, True]
    assert (project / "second.txt").exists() and not (project / "secret.txt").exists()
    assert [m for m in rho.methods_seen() if m == "approval/request"] == ["approval/request"]
    bad = rho.call("setApprovalMode", {"mode": "yolo"})["error"]
    assert bad["code"] == -32602
    assert rho.call("getState")["result"]["approvalMode"] == "auto"
    assert rho.finish() == 0


def test_a_repository_may_tighten_the_mode_but_not_loosen_it_untrusted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / ".rho").mkdir()
    config = project / ".rho" / "config.toml"
    config.write_text('[approval]\nmode = "auto"\n')
    loosened = start_scripted(start_rho, server, "--ephemeral")
    assert loosened.call("getState")["result"]["approvalMode"] == "ask"
    loosened.kill()
    assert 'approval.mode = "auto"' in loosened.stderr_text()
    config.write_text('[approval]\nmode = "read-only"\n')
    tightened = start_scripted(start_rho, server, "--ephemeral")
    assert tightened.call("getState")["result"]["approvalMode"] == "read-only"
    assert tightened.finish() == 0
