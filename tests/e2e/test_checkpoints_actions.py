"""What a restore did to each file, through the real `rho`: `restoreFiles`, its undo and
`branchTo` say `deleted` for a file added since the point, `restored` for one modified
since, `recreated` for one deleted since (`status` still says what changed since the
point), and `rho exec --undo` prints one line per file starting with what it did."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from rho_process import RHO, RhoProcess, rho_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its turns run commands but are not about confinement: they run where no OS sandbox works.
pytestmark = pytest.mark.usefixtures("run_anyway")


def _user_entry(rho: RhoProcess, text: str) -> str:
    entries = rho.call("getTree")["result"]["entries"]
    return next(e["id"] for e in entries if e.get("role") == "user" and e["preview"] == text)


def _done(result: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(r["path"], r["status"], r["action"]) for r in result["restored"]}


def _one_of_each(server: ScriptedServer) -> None:
    """A turn that modifies a.txt, adds new.txt and deletes gone.txt."""
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "after\n"}),
        tool_call_reply("write_file", {"path": "new.txt", "content": "new\n"}),
        tool_call_reply("run_command", {"command": "rm gone.txt"}),
        text_reply("done"),
    )


def _seed(project: Path) -> None:
    (project / "a.txt").write_text("before\n")
    (project / "gone.txt").write_text("still here\n")


def test_a_restore_says_it_deleted_restored_and_recreated(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    _seed(project)
    _one_of_each(server)
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "change"})["result"]["reply"] == "done"
    turn = _user_entry(rho, "change")

    restored = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert restored["conflicts"] == []
    assert _done(restored) == {
        ("a.txt", "modified", "restored"),
        ("new.txt", "added", "deleted"),
        ("gone.txt", "deleted", "recreated"),
    }
    assert not (project / "new.txt").exists()
    assert (project / "gone.txt").read_text() == "still here\n"
    assert (project / "a.txt").read_text() == "before\n"

    undone = rho.call("restoreFiles", {"undo": True})["result"]
    assert _done(undone) == {  # the other way round: to the files as the turn left them
        ("a.txt", "modified", "restored"),
        ("new.txt", "deleted", "recreated"),
        ("gone.txt", "added", "deleted"),
    }
    assert (project / "new.txt").read_text() == "new\n" and not (project / "gone.txt").exists()

    only = rho.call("restoreFiles", {"entryId": turn, "paths": ["gone.txt"]})["result"]
    assert only["restored"] == [{"path": "gone.txt", "status": "deleted", "action": "recreated"}]
    assert (project / "new.txt").exists()  # outside `paths`: left as it was
    assert rho.finish() == 0


def test_branching_back_with_the_files_says_what_it_did_to_each(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    _seed(project)
    _one_of_each(server)
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    rho.call("prompt", {"message": "change"})
    turn = _user_entry(rho, "change")
    branched = rho.call("branchTo", {"entryId": turn, "restoreFiles": True})["result"]
    assert _done(branched) == {
        ("a.txt", "modified", "restored"),
        ("new.txt", "added", "deleted"),
        ("gone.txt", "deleted", "recreated"),
    }
    assert rho.finish() == 0


def _exec(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RHO, "exec", *args],
        cwd=project,
        env=rho_env(home),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_exec_undo_prints_what_it_did_to_each_file(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    _seed(project)
    _one_of_each(server)
    scripted = ("--endpoint", server.chat_url, "-m", "scripted-model")
    run = _exec(project, home, *scripted, "--approval-mode", "auto", "change")
    assert run.returncode == 0, run.stderr
    undone = _exec(project, home, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert sorted(undone.stdout.splitlines()) == [
        "deleted new.txt (added since)",
        "recreated gone.txt (deleted since)",
        "restored a.txt (modified since)",
    ]
    assert not (project / "new.txt").exists() and (project / "gone.txt").exists()


def test_exec_undo_lines_cannot_be_forged_by_a_file_name(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(
        tool_call_reply("run_command", {"command": "touch $'x\\nrestored fake.txt (added since)'"}),
        text_reply("made it"),
    )
    scripted = ("--endpoint", server.chat_url, "-m", "scripted-model")
    run = _exec(project, home, *scripted, "--approval-mode", "auto", "make")
    assert run.returncode == 0, run.stderr
    assert (project / "x\nrestored fake.txt (added since)").exists()
    undone = _exec(project, home, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.splitlines() == [
        "deleted x\\nrestored fake.txt (added since) (added since)"
    ]
    assert list(project.iterdir()) == [project / ".git"]
