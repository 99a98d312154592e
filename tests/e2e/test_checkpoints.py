"""Workspace checkpoints through the real `rho`: a turn's changes — by file tools and by a
command in the OS sandbox — undone by `restoreFiles`, the restore undone, and someone
else's edit reported as a conflict; a point on another branch restored; a git repository's
own state left alone; a project that is no repository; and no `git` at all."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")


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


def _disable(home: Path) -> None:
    user_config(home, "[checkpoints]\nenabled = false\n")


def test_a_turns_changes_are_restored_undone_and_conflicts_reported(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
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
    assert refused == {
        "restored": [],
        "conflicts": ["a.txt"],
        "reasons": {"a.txt": "a.txt changed since rho last recorded it, by someone else"},
    }
    assert (project / "a.txt").read_text() == "typed by the user\n"
    forced = rho.call("restoreFiles", {"entryId": turn, "force": True})["result"]
    assert forced["conflicts"] == [] and _files(project) == before
    assert rho.finish() == 0


def test_bad_requests_are_clear_errors(start_rho: Any, server: ScriptedServer, home: Path) -> None:
    _disable(home)
    rho = start_scripted(start_rho, server, "--ephemeral")
    off = rho.call("restoreFiles", {"undo": True})["error"]
    assert off["code"] == -32022 and "checkpoints are off" in off["message"]
    assert rho.finish() == 0
    user_config(home)  # on by default
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
    assert branched["restored"] == [{"path": "a.txt", "status": "modified", "action": "restored"}]
    assert (project / "a.txt").read_text() == "one\n"
    plain = rho.call("branchTo", {"entryId": turn})["result"]
    assert "restored" not in plain
    assert rho.finish() == 0


def _entries(rho: RhoProcess) -> list[dict[str, Any]]:
    return list(rho.call("getTree")["result"]["entries"])


def test_restore_to_a_point_on_another_branch(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    (project / "a.txt").write_text("zero\n")
    (project / "keep.txt").write_text("keep\n")
    start = _files(project)
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "one\n"}),
        tool_call_reply("write_file", {"path": "b.txt", "content": "b one\n"}),
        text_reply("did first"),
        tool_call_reply("write_file", {"path": "a.txt", "content": "two\n"}),
        tool_call_reply("run_command", {"command": "rm keep.txt"}),
        text_reply("did second"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "first"})["result"]["reply"] == "did first"
    after_first = _files(project)
    assert rho.call("prompt", {"message": "second"})["result"]["reply"] == "did second"
    after_second = _files(project)
    assert set(after_second) == {"a.txt", "b.txt"}

    first = _user_entry(rho, "first")
    before_first = next(e["parentId"] for e in _entries(rho) if e["id"] == first)
    branched = rho.call("branchTo", {"entryId": before_first, "restoreFiles": True})["result"]
    assert {(r["path"], r["status"]) for r in branched["restored"]} == {
        ("a.txt", "modified"),
        ("b.txt", "added"),
        ("keep.txt", "deleted"),
    }
    assert _files(project) == start
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "three\n"}),
        tool_call_reply("run_command", {"command": "echo c > c.txt"}),
        text_reply("did third"),
    )
    assert rho.call("prompt", {"message": "third"})["result"]["reply"] == "did third"
    assert set(_files(project)) == {"a.txt", "c.txt", "keep.txt"}

    entries = _entries(rho)
    second = _user_entry(rho, "second")
    assert not next(e for e in entries if e["id"] == second)["onPath"]  # the other branch
    ends = [e["id"] for e in entries if e.get("marks") and not e["onPath"]]
    assert len(ends) == 2  # the checkpoints that ended turns "first" and "second"
    restored = rho.call("restoreFiles", {"entryId": second})["result"]
    assert restored["conflicts"] == []
    assert {(r["path"], r["status"]) for r in restored["restored"]} == {
        ("a.txt", "modified"),
        ("b.txt", "deleted"),
        ("c.txt", "added"),
    }
    assert _files(project) == after_first  # as turn "second" started
    again = rho.call("restoreFiles", {"entryId": ends[-1]})["result"]
    assert again["conflicts"] == [] and _files(project) == after_second  # as it ended
    assert rho.finish() == 0


_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Tester",
    "GIT_AUTHOR_EMAIL": "tester@example.com",
    "GIT_COMMITTER_NAME": "Tester",
    "GIT_COMMITTER_EMAIL": "tester@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",  # the test's own `git status` never rewrites the index
}


def _git(project: Path, *args: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _GIT_ENV
    command = ["git", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, cwd=project, env=env, check=True, capture_output=True).stdout


def _git_state(project: Path) -> dict[str, Any]:
    """The repository's own state: its index's bytes (read first), every file of `.git`,
    status with ignored files, stash and HEAD."""
    index = (project / ".git" / "index").read_bytes()
    tree = {
        str(p.relative_to(project)): p.read_bytes()
        for p in sorted((project / ".git").rglob("*"))
        if p.is_file()
    }
    return {
        "index": index,
        "git files": tree,
        "status": _git(project, "status", "--porcelain=v1", "--ignored"),
        "stash": _git(project, "stash", "list"),
        "head": _git(project, "rev-parse", "HEAD"),
    }


def test_a_restore_leaves_the_projects_own_git_repository_alone(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    _git(project, "init", "-q")
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "tracked.txt").write_text("tracked\n")
    (project / "old.txt").write_text("old\n")
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("print(1)\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "first")
    (project / "tracked.txt").write_text("stashed edit\n")
    _git(project, "stash", "push", "-q", "-m", "kept aside")
    (project / "src" / "main.py").write_text("print(2)\n")
    _git(project, "add", "src/main.py")  # a staged change
    (project / "tracked.txt").write_text("unstaged edit\n")
    (project / "notes.txt").write_text("untracked\n")
    (project / "build").mkdir()
    (project / "build" / "keep.o").write_bytes(b"\x00object")
    (project / "debug.log").write_text("ignored log\n")
    ignored = ("build/keep.o", "debug.log")
    times = {path: (project / path).stat().st_mtime_ns for path in ignored}
    git_before, before = _git_state(project), _files(project)
    assert git_before["stash"].count(b"\n") == 1 and b"M  src/main.py" in git_before["status"]
    assert b"!! build/" in git_before["status"] and b"!! debug.log" in git_before["status"]

    server.add(
        tool_call_reply("write_file", {"path": "tracked.txt", "content": "by rho\n"}),
        tool_call_reply("write_file", {"path": "src/main.py", "content": "print(3)\n"}),
        tool_call_reply(
            "run_command", {"command": "echo x > new.txt && rm old.txt && echo y > build/out.o"}
        ),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "change the repository"})["result"]["reply"] == "done"
    assert (project / "new.txt").exists() and not (project / "old.txt").exists()
    turn = _user_entry(rho, "change the repository")
    restored = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert restored["conflicts"] == []
    assert {(r["path"], r["status"]) for r in restored["restored"]} == {
        ("tracked.txt", "modified"),
        ("src/main.py", "modified"),
        ("new.txt", "added"),
        ("old.txt", "deleted"),
    }
    assert _git_state(project) == git_before
    after = _files(project)
    assert after.pop("build/out.o")[0] == b"y\n"  # ignored: outside snapshots, not deleted
    assert after == before
    assert {path: (project / path).stat().st_mtime_ns for path in ignored} == times
    assert rho.finish() == 0


def test_a_project_that_is_no_git_repository_is_restored(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    (project / ".git").rmdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'plain'\n")  # the root marker
    (project / "a.txt").write_text("a before\n")
    before = _files(project)
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "a after\n"}),
        tool_call_reply("run_command", {"command": "echo new > b.txt"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "edit"})["result"]["reply"] == "done"
    restored = rho.call("restoreFiles", {"entryId": _user_entry(rho, "edit")})["result"]
    assert {(r["path"], r["status"]) for r in restored["restored"]} == {
        ("a.txt", "modified"),
        ("b.txt", "added"),
    }
    assert _files(project) == before
    assert not (project / ".git").exists()  # the store is not the project's
    assert rho.finish() == 0


def _path_without_git(directory: Path) -> str:
    """A PATH directory with the tools rho's commands and sandbox use, but no `git`."""
    directory.mkdir()
    for name in ("bash", "sh", "bwrap", "env", "cat", "echo", "true", "rg"):
        if found := shutil.which(name):
            (directory / name).symlink_to(found)
    assert shutil.which("git", path=str(directory)) is None
    return str(directory)


def test_without_git_checkpoints_are_off_and_the_turn_goes_on(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path, tmp_path: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "two\n"}), text_reply("ok")
    )
    path = _path_without_git(tmp_path / "bin")
    rho = start_scripted(start_rho, server, "--approval-mode", "auto", env={"PATH": path})
    assert rho.call("prompt", {"message": "edit"})["result"]["reply"] == "ok"
    assert (project / "a.txt").read_text() == "two\n"
    refused = rho.call("restoreFiles", {"entryId": _user_entry(rho, "edit")})["error"]
    assert refused["code"] == -32022 and "git is not installed" in refused["message"]
    assert (project / "a.txt").read_text() == "two\n"
    assert rho.finish() == 0
    said = [line for line in rho.stderr_text().splitlines() if "git is not installed" in line]
    assert len(said) == 1 and "checkpoints are off" in said[0]


def test_a_projects_config_may_turn_checkpoints_off(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    (project / ".rho").mkdir(exist_ok=True)
    (project / ".rho" / "config.toml").write_text("[checkpoints]\nenabled = false\n")
    server.add(text_reply("ok"))
    rho = start_scripted(start_rho, server)
    assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "ok"
    off = rho.call("restoreFiles", {"entryId": _user_entry(rho, "hi")})["error"]
    assert off["code"] == -32022 and "checkpoints are off" in off["message"]
    assert rho.finish() == 0
    assert not (home / ".rho" / "checkpoints").exists()


def test_a_fifo_made_by_a_command_neither_hangs_the_turn_nor_stops_checkpoints(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    server.add(
        tool_call_reply("run_command", {"command": "mkfifo .gitignore && echo x > new.txt"}),
        text_reply("made a fifo"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "fifo"})["result"]["reply"] == "made a fifo"
    assert (project / ".gitignore").is_fifo()
    marked = [e["marks"] for e in rho.call("getTree")["result"]["entries"] if e.get("marks")]
    assert marked == [{"filesChanged": 1}]  # new.txt; the FIFO is no file to record
    restored = rho.call("restoreFiles", {"entryId": _user_entry(rho, "fifo")})["result"]
    assert restored["restored"] == [{"path": "new.txt", "status": "added", "action": "deleted"}]
    assert restored["conflicts"] == [] and restored["reasons"] == {}
    assert not (project / "new.txt").exists() and (project / ".gitignore").is_fifo()
    assert rho.finish() == 0
    said = [line for line in rho.stderr_text().splitlines() if "is a FIFO" in line]
    assert len(said) == 1 and ".gitignore" in said[0]


def test_past_the_size_bound_the_oldest_sessions_snapshots_are_pruned(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    user_config(home, "[checkpoints]\nmax_size_mb = 1\n")
    (project / "small.txt").write_text("one\n")
    server.add(
        tool_call_reply("run_command", {"command": "head -c 1500000 /dev/urandom > big.bin"}),
        text_reply("made it big"),
        tool_call_reply("write_file", {"path": "small.txt", "content": "two\n"}),
        text_reply("edited"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    first = rho.call("getState")["result"]["sessionPath"]
    rho.call("prompt", {"message": "big"})
    first_turn = _user_entry(rho, "big")
    rho.call("newSession")
    rho.call("prompt", {"message": "small"})  # its end prunes the first session's snapshots
    second_turn = _user_entry(rho, "small")
    diff = rho.call("diffCheckpoint", {"entryId": second_turn})["result"]
    assert [(f["path"], f["status"]) for f in diff["files"]] == [("small.txt", "modified")]

    assert "result" in rho.call("resumeSession", {"path": first})
    pruned = rho.call("restoreFiles", {"entryId": first_turn})["error"]
    assert pruned["code"] == -32022 and "no snapshot" in pruned["message"]
    assert (project / "big.bin").stat().st_size == 1_500_000  # nothing was restored
    assert rho.finish() == 0
