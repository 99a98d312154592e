"""What `restoreFiles` refuses, through the real `rho`: a file rho could not record is never
overwritten or deleted (a conflict with its reason, `force` or not, and nothing to undo);
`paths` outside the project, with `..` or beyond a link are -32602 in rho's words; a folder
a command replaced by a link is recorded and restored without following the link."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")

MIB = 1 << 20


def _user_entry(rho: RhoProcess, text: str) -> str:
    entries = rho.call("getTree")["result"]["entries"]
    return next(e["id"] for e in entries if e.get("role") == "user" and e["preview"] == text)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_grown_past_max_file_mb_is_neither_overwritten_nor_deleted(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    (project / "a.bin").write_bytes(bytes(range(256)) * (MIB // 256))  # 1 MiB
    (project / "b.txt").write_text("b before\n")
    server.add(
        tool_call_reply(
            "run_command",
            {"command": "head -c 10485760 /dev/urandom >> a.bin && echo 'b after' > b.txt"},
        ),
        text_reply("grew it"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "grow"})["result"]["reply"] == "grew it"
    assert (project / "a.bin").stat().st_size == 11 * MIB
    grown = _digest(project / "a.bin")
    turn = _user_entry(rho, "grow")
    why = (
        "a.bin is 11 MiB, over [checkpoints] max_file_mb = 10: rho could not record it, so "
        "it is not overwritten"
    )

    for force in (False, True):
        refused = rho.call("restoreFiles", {"entryId": turn, "force": force})["result"]
        assert refused == {"restored": [], "conflicts": ["a.bin"], "reasons": {"a.bin": why}}
        assert _digest(project / "a.bin") == grown
        assert (project / "b.txt").read_text() == "b after\n"  # nothing was written
    nothing = rho.call("restoreFiles", {"undo": True})["error"]
    assert nothing["code"] == -32022 and "no restore to undo" in nothing["message"]
    branched = rho.call("branchTo", {"entryId": turn, "restoreFiles": True})["error"]
    assert branched["code"] == -32022 and why in branched["message"]

    some = rho.call("restoreFiles", {"entryId": turn, "paths": ["b.txt"]})["result"]
    assert some["restored"] == [{"path": "b.txt", "status": "modified", "action": "restored"}]
    assert some["conflicts"] == [] and some["reasons"] == {}
    undone = rho.call("restoreFiles", {"undo": True})["result"]
    assert undone["restored"] == [{"path": "b.txt", "status": "modified", "action": "restored"}]
    assert _digest(project / "a.bin") == grown and (project / "b.txt").read_text() == "b after\n"
    assert rho.finish() == 0


def test_a_file_over_max_file_mb_as_the_prompt_started_is_not_deleted(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    (project / "a.bin").write_bytes(b"\xff" * (11 * MIB))
    server.add(
        tool_call_reply("run_command", {"command": "head -c 1024 a.bin > t && mv t a.bin"}),
        text_reply("shrank it"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "shrink"})["result"]["reply"] == "shrank it"
    refused = rho.call("restoreFiles", {"entryId": _user_entry(rho, "shrink")})["result"]
    assert refused["conflicts"] == ["a.bin"]
    assert refused["reasons"]["a.bin"] == (
        "a.bin was over [checkpoints] max_file_mb = 10 at that point: rho could not record it "
        "then, so it is not deleted"
    )
    assert (project / "a.bin").read_bytes() == b"\xff" * 1024
    assert rho.finish() == 0


def test_paths_outside_the_project_or_beyond_a_link_are_invalid_params(
    start_rho: Any, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f").write_text("not the project's\n")
    (project / "d").mkdir()
    (project / "d" / "f").write_text("f before\n")
    (project / "d" / "g").write_text("g before\n")
    server.add(
        tool_call_reply("run_command", {"command": f"rm -r d && ln -s {outside} d"}),
        text_reply("linked"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "link"})["result"]["reply"] == "linked"
    entries = rho.call("getTree")["result"]["entries"]
    assert [e["marks"] for e in entries if e.get("marks")] == [{"filesChanged": 3}]
    turn = _user_entry(rho, "link")
    diff = rho.call("diffCheckpoint", {"entryId": turn})["result"]["files"]
    assert [(f["path"], f["status"]) for f in diff] == [
        ("d", "added"),
        ("d/f", "deleted"),
        ("d/g", "deleted"),
    ]

    refused = {
        "d/f": "paths: 'd/f' lies beyond d, which is a symbolic link now",
        "/etc/passwd": "paths: '/etc/passwd' is outside the project",
        str(outside / "f"): "is outside the project",
        "../outside/f": "paths: '../outside/f' has '..' in it",
        "d/../../outside/f": "has '..' in it",
        ".git/config": "is inside .git or .rho",
        "": "paths: '' is no path",
    }
    for path, why in refused.items():
        error = rho.call("restoreFiles", {"entryId": turn, "paths": [path]})["error"]
        assert error["code"] == -32602 and why in error["message"], (path, error)
        assert error["message"].startswith("Invalid params: paths: ")
    assert (project / "d").is_symlink()
    assert (outside / "f").read_text() == "not the project's\n"

    restored = rho.call("restoreFiles", {"entryId": turn, "paths": ["d"]})["result"]
    assert [r["path"] for r in restored["restored"]] == ["d", "d/f", "d/g"]
    assert not (project / "d").is_symlink() and (project / "d" / "f").read_text() == "f before\n"
    assert (outside / "f").read_text() == "not the project's\n"
    undone = rho.call("restoreFiles", {"undo": True})["result"]
    assert undone["conflicts"] == [] and (project / "d").is_symlink()
    assert (outside / "f").read_text() == "not the project's\n"
    assert rho.finish() == 0
    assert "checkpoints are off" not in rho.stderr_text()


def test_a_folder_replaced_by_a_link_inside_the_project_is_restored_whole(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    (project / "d").mkdir()
    (project / "d" / "f").write_text("f before\n")
    (project / "e").mkdir()
    (project / "e" / "f").write_text("e's own\n")
    server.add(
        tool_call_reply("run_command", {"command": "rm -r d && ln -s e d"}),
        text_reply("linked"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "link"})["result"]["reply"] == "linked"
    turn = _user_entry(rho, "link")
    through = rho.call("restoreFiles", {"entryId": turn, "paths": ["d/f"]})["error"]
    assert through["code"] == -32602 and "lies beyond d" in through["message"]
    assert (project / "e" / "f").read_text() == "e's own\n"  # not written through the link
    restored = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert restored["conflicts"] == [] and (project / "d" / "f").read_text() == "f before\n"
    assert (project / "e" / "f").read_text() == "e's own\n"
    assert rho.finish() == 0
    shutil.rmtree(project / "d")
