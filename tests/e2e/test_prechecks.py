"""A call that cannot run never reaches the user, through the real `rho` over JSON-RPC: no
`approval/request` for arguments that do not fit or a file that is not there, the failure
as the call's result — and, as an attacker would try it, no answer before approval that
tells what a file holds or reaches past the project."""

from __future__ import annotations

from typing import Any

from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import text_reply, tool_call_reply


def _results(rho: RhoProcess, prompt: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The prompt's `tool/result` params, and the methods it notified (approving each
    approval it asks)."""
    results: list[dict[str, Any]] = []
    methods: list[str] = []
    while True:
        message = rho.read()
        if isinstance(message, dict) and message.get("id") == prompt and "method" not in message:
            return results, methods
        if not isinstance(message, dict) or "method" not in message:
            continue
        methods.append(message["method"])
        if message["method"] == "approval/request":
            rho.answer_approval(message["params"])
        elif message["method"] == "tool/result":
            results.append(message["params"])


def test_calls_that_cannot_run_are_answered_without_an_approval(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared = shared_rho("--ephemeral")
    rho, server, project = shared.rho, shared.server, shared.project
    (project / "present.txt").write_text("one\n")
    server.add(
        tool_call_reply("edit_file", {"path": "present.txt"}),
        tool_call_reply("edit_file", {"path": "present.txt", "edits": []}),
        tool_call_reply(
            "edit_file", {"path": "absent.txt", "edits": [{"old_text": "a", "new_text": "b"}]}
        ),
        tool_call_reply("run_command", {"command": "touch ran", "timeout_secs": "x"}),
        tool_call_reply("write_file", {"path": ".git/hooks/post-commit", "content": "x"}),
        text_reply("done"),
    )
    results, methods = _results(rho, rho.request("prompt", {"message": "go"}))
    assert "approval/request" not in methods and "tool/denied" not in methods
    assert [r["is_error"] for r in results] == [True] * 5
    outputs = [r["output"] for r in results]
    assert outputs[0] == "edit_file: missing 'edits' (an array of edit objects)"
    assert outputs[1] == "edit_file: no edits provided"
    assert outputs[2].startswith("edit_file: 'absent.txt' not found.")
    assert outputs[3].startswith("run_command: invalid arguments: timeout_secs:")
    assert outputs[4].startswith("write_file: ") and ".git" in outputs[4]
    assert "Traceback" not in "".join(outputs) and "pydantic" not in "".join(outputs)
    assert not (project / "ran").exists() and not (project / ".git" / "hooks").exists()
    assert (project / "present.txt").read_text() == "one\n"


def test_nothing_a_file_holds_is_told_before_approval(shared_rho, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An edit whose failure depends on the content (a text that is not there, a stale
    anchor) is asked like any other, and one that reaches past the project is refused
    without a word of what is there."""
    shared = shared_rho("--ephemeral")
    rho, server, project = shared.rho, shared.server, shared.project
    outside = tmp_path / "outside.txt"
    outside.write_text("TOKEN=outside-secret\n")
    (project / "link.txt").unlink(missing_ok=True)
    (project / "link.txt").symlink_to(outside)
    (project / "key.env").write_text("TOKEN=abc123\n")
    probe = {"old_text": "TOKEN=z", "new_text": "x"}
    server.add(
        tool_call_reply("edit_file", {"path": "key.env", "edits": [probe]}),
        tool_call_reply(
            "edit_file",
            {"path": "key.env", "edits": [{"op": "replace", "pos": "1#ZZZZ", "lines": ["x"]}]},
        ),
        tool_call_reply("edit_file", {"path": "link.txt", "edits": [probe]}),
        tool_call_reply("edit_file", {"path": str(outside), "edits": [probe]}),
        text_reply("done"),
    )
    before = len(rho.seen)
    results, _ = _results(rho, rho.request("prompt", {"message": "go"}))
    asked = [m["params"] for m in rho.seen[before:] if m.get("method") == "approval/request"]
    assert [a["arguments"] for a in asked] == [
        '{"path": "key.env", "edits": [{"old_text": "TOKEN=z", "new_text": "x"}]}',
        '{"path": "key.env", "edits": [{"op": "replace", "pos": "1#ZZZZ", "lines": ["x"]}]}',
    ]
    assert all(r["is_error"] for r in results)
    for refused in results[2:]:
        assert "outside-secret" not in refused["output"] and "TOKEN" not in refused["output"]
    assert outside.read_text() == "TOKEN=outside-secret\n"
    assert (project / "key.env").read_text() == "TOKEN=abc123\n"
