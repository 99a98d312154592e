"""Approval rules attacked through the real `rho` process: a command rule, given or
remembered, never covers options that run another program, and a path rule never reaches
through a symlink to a file it does not name."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")

_PLANT = 'sh -c "echo PWNED > planted.txt"'
#: Lines a prefix rule must not cover, each with the rule a user would have given: every
#: one would run a program (and plant a file) if it ran.
_ATTACKS = [
    ("git grep:*", f"git grep -O'{_PLANT}' -e foo"),
    ("git grep:*", f"git grep --open-files-in-pager='{_PLANT}' -e foo"),
    ("git grep:*", "git grep --open-files-in-pager='touch planted.txt' foo"),
    ("git log:*", "git -c core.pager='touch planted.txt' log"),
    ("git filter-branch:*", "git filter-branch -f --tree-filter 'touch ../planted.txt' HEAD"),
    ("sed:*", "sed '1e touch planted.txt' notes.txt"),
    ("sed -n:*", "sed -n -e '1w planted.txt' notes.txt"),
    (
        "tar:*",
        "tar --checkpoint=1 --checkpoint-action=exec='touch planted.txt' -cf a.tar notes.txt",
    ),
    ("sort:*", "sort --compress-program='touch' -S 1 notes.txt"),
    ("find . -name:*", "find . -name notes.txt -exec touch planted.txt ;"),
    ("awk:*", "awk 'BEGIN { system(\"touch planted.txt\") }'"),
]


def _command(line: str) -> object:
    return tool_call_reply("run_command", {"command": line})


def _events(rho: RhoProcess, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == method]


def _finish_prompt(rho: RhoProcess, prompt_id: Any) -> dict[str, Any]:
    return rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def _repository(project: Path) -> None:
    """`project` as a git repository with one commit holding `notes.txt`."""
    shutil.rmtree(project / ".git")
    (project / "notes.txt").write_text("foo\nbar\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(project)]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "first"]):
        subprocess.run([*git, *args], check=True, env=env)


@pytest.mark.parametrize(("rule", "line"), _ATTACKS, ids=[line for _, line in _ATTACKS])
def test_a_command_rule_does_not_cover_options_that_run_programs(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, rule: str, line: str
) -> None:
    _repository(project)
    server.add(_command(line), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--allow", f"run_command({rule})")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]  # it asks
    assert line in request["arguments"] or "planted" in request["arguments"]
    offered = [s["rule"] for s in request["suggestedRules"]]
    assert all(not text.endswith(":*)") for text in offered), offered  # no prefix offered
    rho.answer_approval(request, approved=False)
    _finish_prompt(rho, prompt_id)
    assert _events(rho, "tool/approved") == []
    assert not (project / "planted.txt").exists()
    assert rho.finish() == 0


def test_the_rules_still_cover_the_common_read_only_calls(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _repository(project)
    lines = ["git grep -n foo", "git log -n 5 --oneline", "git status", "sed -n 1,1p notes.txt"]
    server.add(*[_command(line) for line in lines], text_reply("done"))
    rules = ["git grep:*", "git log:*", "git status:*", "sed:*"]
    allow = [arg for rule in rules for arg in ("--allow", f"run_command({rule})")]
    rho = start_scripted(start_rho, server, "--ephemeral", *allow)
    _finish_prompt(rho, rho.request("prompt", {"message": "go"}))
    assert "approval/request" not in rho.methods_seen()
    approved = [a["approvedBy"] for a in _events(rho, "tool/approved")]
    assert approved == [f"run_command({rule})" for rule in rules]
    outputs = [r["output"] for r in _events(rho, "tool/result")]
    assert (
        "notes.txt:1:foo" in outputs[0] and "first" in outputs[1] and outputs[3].endswith("\nfoo\n")
    )
    assert rho.finish() == 0


def test_a_remembered_rule_does_not_cover_a_pager_that_runs_a_program(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _repository(project)
    server.add(_command("git grep -n foo"), _command(f"git grep -O'{_PLANT}' -e foo"))
    server.add(_command("git grep -n bar"), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    first = rho.notification("approval/request")["params"]
    assert {s["rule"] for s in first["suggestedRules"]} == {
        "run_command(git grep -n foo)",
        "run_command(git grep:*)",
    }
    answer = rho.request(
        "approvalResponse",
        {
            "approvalId": first["approvalId"],
            "approved": True,
            "remember": {"scope": "session", "rule": "run_command(git grep:*)"},
        },
    )
    assert rho.wait_for(lambda m: m.get("id") == answer)["result"] == {}
    pager = rho.notification("approval/request")["params"]  # the remembered rule: no
    assert "open" in pager["arguments"] or "-O" in pager["arguments"]
    rho.answer_approval(pager, approved=False)
    _finish_prompt(rho, prompt_id)
    approved = [(a["approvedBy"], a["source"]) for a in _events(rho, "tool/approved")]
    assert approved == [("run_command(git grep:*)", "session")]  # `git grep -n bar`
    assert not (project / "planted.txt").exists()
    assert rho.finish() == 0


def _links(project: Path) -> None:
    """`src/up -> ..` and `src/sub -> ../other/deep`: `src/sub/..` is `other`."""
    (project / "src").mkdir()
    (project / "other" / "deep").mkdir(parents=True)
    (project / "Makefile").write_text("all:\n")
    (project / "src" / "up").symlink_to("..")
    (project / "src" / "sub").symlink_to("../other/deep")


def test_a_path_rule_does_not_reach_through_a_symlink(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _links(project)
    writes = ["src/up/Makefile", "src/sub/../victim1.txt", "src/up/src/up/x.txt", "src/ok.txt"]
    for path in writes:
        server.add(tool_call_reply("write_file", {"path": path, "content": "pwned\n"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--allow", "write_file(src/**)")
    prompt_id = rho.request("prompt", {"message": "go"})
    asked = []
    for _ in range(3):  # the first three ask; the last is the rule's
        request = rho.notification("approval/request")["params"]
        asked.append(request)
        rho.answer_approval(request, approved=False)
    _finish_prompt(rho, prompt_id)
    assert [a["approvedBy"] for a in _events(rho, "tool/approved")] == ["write_file(src/**)"]
    assert (project / "Makefile").read_text() == "all:\n"
    assert not (project / "other" / "victim1.txt").exists()
    assert not (project / "x.txt").exists()
    assert (project / "src" / "ok.txt").read_text() == "pwned\n"
    offered = [{s["rule"] for s in a["suggestedRules"]} for a in asked]
    assert offered[0] == {"edit(Makefile)", "edit(**)"}  # built from the file it will write
    assert offered[1] == set()  # its `..` crosses a link: no rule could cover it
    assert offered[2] == {"edit(x.txt)", "edit(**)"}
    assert "a/Makefile" in (asked[0]["preview"] or "")  # the preview names the real file
    assert rho.finish() == 0


def test_a_remembered_path_rule_is_the_resolved_one(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _links(project)
    server.add(tool_call_reply("write_file", {"path": "src/up/Makefile", "content": "new\n"}))
    server.add(tool_call_reply("write_file", {"path": "src/up/src/a.txt", "content": "a\n"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    answer = rho.request(
        "approvalResponse",
        {
            "approvalId": request["approvalId"],
            "approved": True,
            "remember": {"scope": "session", "rule": "edit(Makefile)"},
        },
    )
    assert rho.wait_for(lambda m: m.get("id") == answer)["result"] == {}
    second = rho.notification("approval/request")["params"]  # src/a.txt: Makefile's rule, no
    assert {s["rule"] for s in second["suggestedRules"]} == {
        "edit(src/a.txt)",
        "edit(src/**)",
        "edit(**)",
    }
    rho.answer_approval(second, approved=False)
    _finish_prompt(rho, prompt_id)
    assert (project / "Makefile").read_text() == "new\n"
    assert not (project / "src" / "a.txt").exists()
    assert rho.finish() == 0
