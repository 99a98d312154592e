"""The file sandbox through the real `rho` process: approved writes still never reach .git/.rho."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _approve_all(rho: RhoProcess, prompt_id: int, count: int) -> dict[str, Any]:
    """Approve `count` tool calls, then return the prompt's response."""
    for _ in range(count):
        rho.answer_approval(rho.notification("approval/request")["params"])
    return rho.wait_for(lambda m: m.get("id") == prompt_id)


def test_approved_writes_into_git_and_rho_are_refused(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / ".git" / "hooks").mkdir()
    (project / "hooks").symlink_to(".git/hooks", target_is_directory=True)
    server.add(
        tool_call_reply("write_file", {"path": ".git/hooks/pre-push", "content": "#!/bin/sh\n"}),
        tool_call_reply("write_file", {"path": "hooks/post-checkout", "content": "#!/bin/sh\n"}),
        tool_call_reply("write_file", {"path": ".rho/config.toml", "content": "[approval]\n"}),
        text_reply("done"),
    )
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral")
    assert rho.read()["method"] == "ready"
    prompt_id = rho.request("prompt", {"message": "install hooks"})
    assert _approve_all(rho, prompt_id, 3)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert [r["is_error"] for r in results] == [True, True, True]
    assert results[0]["output"] == (
        "write_file: '.git/hooks/pre-push' is inside .git/, which rho never writes to "
        "(git hooks and config would run as code)"
    )
    assert "'hooks/post-checkout' is inside .git/" in results[1]["output"]
    assert "'.rho/config.toml' is inside .rho/" in results[2]["output"]
    assert list((project / ".git" / "hooks").iterdir()) == []
    assert not (project / ".rho").exists()
    assert rho.finish() == 0


def test_symlinks_leading_outside_are_refused(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n")
    (project / "vendor").symlink_to(outside, target_is_directory=True)
    server.add(
        tool_call_reply("read_file", {"path": "vendor/secret.txt"}),
        tool_call_reply("write_file", {"path": "vendor/planted.txt", "content": "x"}),
        text_reply("done"),
    )
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral")
    assert rho.read()["method"] == "ready"
    prompt_id = rho.request("prompt", {"message": "escape"})
    assert _approve_all(rho, prompt_id, 1)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert all(r["is_error"] for r in results)
    assert all("outside the project sandbox" in r["output"] for r in results)
    assert "OUTSIDE-SECRET" not in str(server.requests[-1].json)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert rho.finish() == 0
