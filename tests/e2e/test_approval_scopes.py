"""The scopes an approval offers, through the real `rho` process: for a file edit this
file, this folder and every edit in the project (`edit(…)`, covering write_file, edit_file
and a plugin's tool that writes a path), never reaching outside the project, into `.git` or
`.rho`, or through a link; for a command exactly it, and its prefix only when it is known
to run nothing else. A remembered scope is listed and revocable."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from rho_process import RhoProcess, install_plugin, plugin_env, start_scripted  # type: ignore[import-not-found]
from sandboxes import needs_sandbox  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _write(path: str, content: str = "new\n") -> object:
    return tool_call_reply("write_file", {"path": path, "content": content})


def _edit(path: str, old: str, new: str) -> object:
    return tool_call_reply(
        "edit_file", {"path": path, "edits": [{"old_text": old, "new_text": new}]}
    )


def _command(line: str) -> object:
    return tool_call_reply("run_command", {"command": line})


def _deny_the_rest(rho: RhoProcess, prompt_id: Any) -> list[dict[str, Any]]:
    """Deny every approval request until the prompt ends; the requests denied."""
    denied = []
    while True:
        message = rho.wait_for(
            lambda m: (
                m.get("method") == "approval/request"
                or (m.get("id") == prompt_id and "method" not in m)
            )
        )
        if "method" not in message:
            return denied
        denied.append(message["params"])
        rho.answer_approval(message["params"], approved=False)


def _asked(requests: list[dict[str, Any]]) -> list[str]:
    """The path or command of each request."""
    found = []
    for request in requests:
        arguments = json.loads(request["arguments"])
        found.append(arguments.get("path") or arguments["command"])
    return found


def _approved(rho: RhoProcess) -> list[tuple[str, str, str]]:
    """Each call a rule approved: (tool, rule, source)."""
    return [
        (m["params"]["name"], m["params"]["approvedBy"], m["params"]["source"])
        for m in rho.seen
        if m.get("method") == "tool/approved"
    ]


def test_a_write_in_a_nested_folder_offers_this_file_this_folder_and_the_project(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_write("src/app/main.py"), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    assert request["suggestedRules"] == [
        {"scope": scope, "rule": rule, "label": label}
        for scope in ("session", "project")
        for rule, label in (
            ("edit(src/app/main.py)", "edits to src/app/main.py"),
            ("edit(src/app/**)", "edits in src/app/"),
            ("edit(**)", "edits in this project"),
        )
    ]
    rho.answer_approval(request, approved=False)
    assert _deny_the_rest(rho, prompt_id) == []
    assert not (project / "src").exists()
    assert rho.finish() == 0


def test_a_remembered_folder_rule_covers_every_edit_in_the_folder_and_nothing_outside(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    app = project / "src" / "app"
    app.mkdir(parents=True)
    (app / "old.py").write_text("x = 1\n")
    (app / "up").symlink_to("../..")  # src/app/up/escape.txt is escape.txt at the root
    server.add(_write("src/app/new.py"), _edit("src/app/old.py", "x = 1", "x = 2"))
    server.add(_write("src/app/deeper/c.py"), _write("src/other.py"))
    server.add(_write("src/app/up/escape.txt"), _edit("src/app/../main.py", "a", "b"))
    server.add(text_reply("done"))
    (project / "src" / "main.py").write_text("a\n")
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    rho.approve_remembering("session", "edit(src/app/**)")
    asked = _asked(_deny_the_rest(rho, prompt_id))
    assert asked == ["src/other.py", "src/app/up/escape.txt", "src/app/../main.py"]
    assert _approved(rho) == [
        ("edit_file", "edit(src/app/**)", "session"),
        ("write_file", "edit(src/app/**)", "session"),
    ]
    assert (app / "old.py").read_text() == "x = 2\n" and (app / "deeper" / "c.py").exists()
    assert not (project / "escape.txt").exists() and not (project / "src" / "other.py").exists()
    assert (project / "src" / "main.py").read_text() == "a\n"

    listed = rho.call("listApprovalRules")["result"]["rules"]
    assert listed == [
        {"rule": "edit(src/app/**)", "action": "allow", "source": "session", "revocable": True}
    ]
    revoked = rho.call("revokeApprovalRule", {"rule": "edit(src/app/**)", "scope": "session"})
    assert revoked["result"] == {}
    server.add(_write("src/app/again.py"), text_reply("done"))
    prompt_id = rho.request("prompt", {"message": "again"})
    assert _asked(_deny_the_rest(rho, prompt_id)) == ["src/app/again.py"]  # asks again
    assert rho.finish() == 0


def test_the_project_rule_covers_every_edit_in_the_project_and_no_further(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "src").mkdir()
    (project / "src" / "out").symlink_to(outside)
    (project / ".git" / "config").write_text("[core]\n")
    server.add(_write("a.txt", "a\n"), _edit("a.txt", "a", "b"), _write("deep/er/b.md"))
    server.add(_write(str(project / "src" / "abs.txt")))
    hostile = [".git/config", ".git/hooks/pre-commit", ".rho/config.toml", "sub/.git/x"]
    hostile += ["../outside/x.txt", str(outside / "y.txt"), "src/out/z.txt"]
    server.add(*[_write(path, "pwned\n") for path in hostile], text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    rho.approve_remembering("project", "edit(**)")
    denied = _deny_the_rest(rho, prompt_id)
    assert all(request["suggestedRules"] == [] for request in denied)  # nothing to offer
    assert _approved(rho) == [
        ("edit_file", "edit(**)", "project"),
        ("write_file", "edit(**)", "project"),
        ("write_file", "edit(**)", "project"),
    ]
    assert (project / "a.txt").read_text() == "b\n" and (project / "deep" / "er" / "b.md").exists()
    assert (project / "src" / "abs.txt").exists()
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert not (project / ".git" / "hooks").exists() and not (project / ".rho").exists()
    assert not (project / "sub").exists() and list(outside.iterdir()) == []
    assert rho.finish() == 0

    server.add(_write("c.txt"), text_reply("done"))  # kept for the project: a new rho
    again = start_scripted(start_rho, server, "--ephemeral")
    assert _deny_the_rest(again, again.request("prompt", {"message": "go"})) == []
    assert _approved(again) == [("write_file", "edit(**)", "project")]
    listed = again.call("listApprovalRules")["result"]["rules"]
    assert listed == [
        {"rule": "edit(**)", "action": "allow", "source": "project", "revocable": True}
    ]
    assert (
        again.call("revokeApprovalRule", {"rule": "edit(**)", "scope": "project"})["result"] == {}
    )
    assert again.call("listApprovalRules")["result"]["rules"] == []
    assert again.finish() == 0


_STAMP = '''
from rho_kernel import ToolContext, hookimpl, tool
from rho_kernel.security import replace_atomically


@tool(risk="write", rule_subject="path")
def stamp(path: str, ctx: ToolContext) -> str:
    """Write a stamp into the file at path."""
    with ctx.root.write_parent(path, make_parents=True) as target:
        replace_atomically(target, b"stamped\\n")
    return "stamped"


@tool(risk="destructive", rule_subject="path")
def shred(path: str, ctx: ToolContext) -> str:
    """Shred the file at path (declared destructive: not a file edit)."""
    with ctx.root.write_parent(path) as target:
        replace_atomically(target, b"")
    return "shredded"


@hookimpl
def rho_register_tools():
    return [stamp, shred]
'''


def test_a_plugins_tool_that_declares_it_writes_a_path_joins_the_edit_class(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    install_plugin(site, "stamp_rho_plugin", "stamp", _STAMP)
    (project / "docs").mkdir()
    (project / "docs" / "keep.md").write_text("keep\n")
    server.add(tool_call_reply("stamp", {"path": "docs/a.md"}), _write("docs/b.md"))
    server.add(tool_call_reply("stamp", {"path": "c.md"}))
    server.add(tool_call_reply("shred", {"path": "docs/keep.md"}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=plugin_env(site, "stamp"))
    prompt_id = rho.request("prompt", {"message": "go"})
    first = rho.approve_remembering("session", "edit(docs/**)")
    assert first["tool"] == "stamp"
    assert _asked(_deny_the_rest(rho, prompt_id)) == ["c.md", "docs/keep.md"]
    assert _approved(rho) == [("write_file", "edit(docs/**)", "session")]
    assert (project / "docs" / "a.md").read_text() == "stamped\n"
    assert (project / "docs" / "keep.md").read_text() == "keep\n"
    assert rho.finish() == 0


def _repository(project: Path) -> None:
    """`project` as a git repository with one commit holding `notes.txt`."""
    shutil.rmtree(project / ".git")
    (project / "notes.txt").write_text("one\ntwo\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(project)]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "first"]):
        subprocess.run([*git, *args], check=True, env=env)


@needs_sandbox
def test_a_command_offers_itself_and_its_prefix_only_when_known_safe(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    _repository(project)
    lines = ["git log -n 1", "git log --oneline", "git log --output=planted", "git status"]
    lines += ["sed -n '1w planted' notes.txt"]
    server.add(*[_command(line) for line in lines], text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    first = rho.approve_remembering("session", "run_command(git log:*)")
    assert [(s["scope"], s["rule"], s["label"]) for s in first["suggestedRules"]] == [
        ("session", "run_command(git log -n 1)", "the command git log -n 1"),
        ("session", "run_command(git log:*)", "commands starting with git log"),
        ("project", "run_command(git log -n 1)", "the command git log -n 1"),
        ("project", "run_command(git log:*)", "commands starting with git log"),
    ]
    denied = _deny_the_rest(rho, prompt_id)
    assert _asked(denied) == lines[2:]  # `git log --oneline` ran by the rule
    assert _approved(rho) == [("run_command", "run_command(git log:*)", "session")]
    offered = [[s["rule"] for s in r["suggestedRules"] if s["scope"] == "session"] for r in denied]
    assert offered == [
        ["run_command(git log --output=planted)"],  # it writes a file: no prefix
        ["run_command(git status)", "run_command(git status:*)"],
        ["run_command(sed -n '1w planted' notes.txt)"],  # its second word is an option
    ]
    assert not (project / "planted").exists()
    assert rho.finish() == 0


def test_given_class_rules_allow_and_deny_every_file_edit(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "b.txt").write_text("old\n")
    server.add(_write("src/a.txt"), _edit("src/b.txt", "old", "new"))
    server.add(_write("src/secret/k.txt"), _edit("src/b.txt", "new", "newer"))
    server.add(_write("src/c.pem"), text_reply("done"))
    given = ("--allow", "edit(src/**)", "--deny", "edit(src/secret/**)", "--deny", "edit(*.pem)")
    rho = start_scripted(start_rho, server, "--ephemeral", *given)
    prompt_id = rho.request("prompt", {"message": "go"})
    assert _deny_the_rest(rho, prompt_id) == []  # nothing asks: each is allowed or denied
    assert _approved(rho) == [
        ("write_file", "edit(src/**)", "--allow"),
        ("edit_file", "edit(src/**)", "--allow"),
        ("edit_file", "edit(src/**)", "--allow"),
    ]
    outputs = [m["params"]["output"] for m in rho.seen if m.get("method") == "tool/result"]
    assert outputs[2] == "Tool call denied by the rule 'edit(src/secret/**)' (--deny)."
    assert outputs[4] == "Tool call denied by the rule 'edit(*.pem)' (--deny)."
    assert (project / "src" / "a.txt").exists() and (
        project / "src" / "b.txt"
    ).read_text() == "newer\n"
    assert not (project / "src" / "secret").exists() and not (project / "src" / "c.pem").exists()
    assert rho.finish() == 0


def test_a_class_rule_outside_the_project_stops_the_start(start_rho) -> None:  # type: ignore[no-untyped-def]
    for rule, problem in [
        ("edit(../outside/**)", "leaves the project root"),
        ("edit(/etc/**)", "is not relative to the project root"),
        ("edit(.git/hooks/*)", "names .git or .rho"),
    ]:
        rho = start_rho("--ephemeral", "--allow", rule)
        assert rho.finish() == 2
        assert rho.raw == []
        err = rho.stderr_text()
        assert err.startswith(f"rho: error: --allow: rule '{rule}'") and problem in err, err
