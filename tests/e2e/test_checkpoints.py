"""Workspace checkpoints through the real `rho`: a turn's changes — by file tools and by a
command in the OS sandbox — undone by `restoreFiles`, the restore undone, and someone
else's edit reported as a conflict."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _files(project: Path) -> dict[str, tuple[bytes, int]]:
    """Each file of the project outside .git and .rho: its bytes and mode."""
    found = {}
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if path.is_file() and relative.parts[0] not in (".git", ".rho"):
            found[str(relative)] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def _user_entry(rho: RhoProcess, text: str) -> str:
    entries = rho.call("getTree")["result"]["entries"]
    return next(e["id"] for e in entries if e.get("role") == "user" and e["preview"] == text)


def _enable(home: Path) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[checkpoints]\nenabled = true\n")


def test_a_turns_changes_are_restored_undone_and_conflicts_reported(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    _enable(home)
    (project / "a.txt").write_text("a before\n")
    (project / "b.txt").write_text("b before\n")
    (project / "d.sh").write_text("#!/bin/sh\necho d\n")
    (project / "d.sh").chmod(0o755)
    (project / "b.txt").chmod(0o600)
    before = _files(project)
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "a after\n"}),
        tool_call_reply(
            "edit_file",
            {"path": "b.txt", "edits": [{"old_text": "b before", "new_text": "b after"}]},
        ),
        tool_call_reply("run_command", {"command": "echo new > c.txt && rm d.sh"}),
        text_reply("changed four files"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert (
        rho.call("prompt", {"message": "change things"})["result"]["reply"] == "changed four files"
    )
    after = _files(project)
    assert set(after) == {"a.txt", "b.txt", "c.txt"} and after["b.txt"][1] == 0o600
    turn = _user_entry(rho, "change things")
    marked = [e["marks"] for e in rho.call("getTree")["result"]["entries"] if e.get("marks")]
    assert marked == [{"filesChanged": 4}]  # the checkpoint that ended the turn

    diff = rho.call("diffCheckpoint", {"entryId": turn})["result"]
    assert {(f["path"], f["status"]) for f in diff["files"]} == {
        ("a.txt", "modified"),
        ("b.txt", "modified"),
        ("c.txt", "added"),
        ("d.sh", "deleted"),
    }
    assert "+a after" in next(f["diff"] for f in diff["files"] if f["path"] == "a.txt")

    restored = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert restored["conflicts"] == [] and len(restored["restored"]) == 4
    assert _files(project) == before  # bytes and modes, c.txt gone, d.sh back

    undone = rho.call("restoreFiles", {"undo": True})["result"]
    assert undone["conflicts"] == [] and _files(project) == after

    (project / "a.txt").write_text("typed by the user\n")  # not by rho
    refused = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert refused == {"restored": [], "conflicts": ["a.txt"]}
    assert (project / "a.txt").read_text() == "typed by the user\n"
    forced = rho.call("restoreFiles", {"entryId": turn, "force": True})["result"]
    assert forced["conflicts"] == [] and _files(project) == before
    assert rho.finish() == 0


def test_bad_requests_are_clear_errors(start_rho: Any, server: ScriptedServer, home: Path) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    off = rho.call("restoreFiles", {"undo": True})["error"]
    assert off["code"] == -32022 and "checkpoints are off" in off["message"]
    assert rho.finish() == 0
    _enable(home)
    rho = start_scripted(start_rho, server, "--ephemeral")
    missing = rho.call("restoreFiles", {"entryId": "nope"})["error"]
    assert missing["code"] == -32602 and "no entry 'nope'" in missing["message"]
    both = rho.call("restoreFiles", {"entryId": "x", "undo": True})["error"]
    assert both["code"] == -32602
    nothing = rho.call("restoreFiles", {"undo": True})["error"]
    assert nothing["code"] == -32022 and "no restore to undo" in nothing["message"]
    assert rho.finish() == 0


def test_branch_to_can_take_the_files_back_to_the_entry(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    _enable(home)
    (project / "a.txt").write_text("one\n")
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "two\n"}), text_reply("ok")
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    rho.call("prompt", {"message": "edit"})
    turn = _user_entry(rho, "edit")
    (project / "b.txt").write_text("mine\n")  # the user's own new file
    refused = rho.call("branchTo", {"entryId": turn, "restoreFiles": True})["error"]
    assert refused["code"] == -32022 and "b.txt" in refused["message"]  # it would go
    assert (project / "a.txt").read_text() == "two\n"  # nothing changed
    (project / "b.txt").unlink()
    branched = rho.call("branchTo", {"entryId": turn, "restoreFiles": True})["result"]
    assert branched["restored"] == [{"path": "a.txt", "status": "modified"}]
    assert (project / "a.txt").read_text() == "one\n"
    plain = rho.call("branchTo", {"entryId": turn})["result"]
    assert "restored" not in plain
    assert rho.finish() == 0
