"""Nested repositories under the OS sandbox, through the real `rho` process: an approved
command cannot write any `.git` or `.rho` of the project, nor the git directory a `.git`
file points to, nor a bare repository; what it creates is reported in the result."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rho_process import start_scripted  # type: ignore[import-not-found]
from sandboxes import needs_sandbox  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

pytestmark = needs_sandbox

CONFIG = "[core]\n\tbare = false\n"


@pytest.fixture
def project(outside_tmp: Path) -> Path:
    """A project with nested repositories of every shape."""
    root = outside_tmp / "project"
    for repo in ("", "sub", "deep/a/b/c"):
        for name in ("hooks", "objects", "refs"):
            (root / repo / ".git" / name).mkdir(parents=True)
        (root / repo / ".git" / "config").write_text(CONFIG)
        (root / repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "sub2" / ".rho").mkdir(parents=True)
    (root / "sub2" / ".rho" / "config.toml").write_text("# settings\n")
    (root / "gitstuff" / "hooks").mkdir(parents=True)
    (root / "gitstuff" / "config").write_text(CONFIG)
    (root / "sub3").mkdir()
    (root / "sub3" / ".git").write_text("gitdir: ../gitstuff\n")
    bare = root / "vendor" / "lib.git"
    for name in ("objects", "refs", "hooks"):
        (bare / name).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text(CONFIG)
    (root / "sublink").symlink_to("sub")
    (root / "sub4").mkdir()
    (root / "sub4" / ".git").symlink_to("../gitlinked")
    (root / "gitlinked" / "hooks").mkdir(parents=True)
    return root


@pytest.fixture
def home(outside_tmp: Path) -> Path:
    path = outside_tmp / "home"
    (path / ".rho").mkdir(parents=True)
    (path / ".rho" / "config.toml").write_text(
        '[approval.per_tool]\nrun_command = "auto"\nwrite_file = "auto"\n'
    )
    return path


def run(start_rho: Any, server: ScriptedServer, command: str) -> dict[str, Any]:
    """The result of one auto-approved run_command."""
    server.add(tool_call_reply("run_command", {"command": command}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "go"})
    result: dict[str, Any] = rho.notification("tool/result", timeout=60)["params"]
    rho.notification("agent/end")
    assert rho.finish() == 0, rho.stderr_text()
    return result


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file and link under the project's protected places, with its content."""
    seen: dict[str, bytes | str] = {}
    places = [
        "sub/.git",
        "deep/a/b/c/.git",
        ".git",
        "sub2/.rho",
        "gitstuff",
        "sub3/.git",
        "vendor/lib.git",
        "gitlinked",
    ]
    for place in places:
        top = root / place
        if top.is_file():
            seen[place] = top.read_bytes()
            continue
        for path in sorted(top.rglob("*")):
            rel = str(path.relative_to(root))
            seen[rel] = (
                os.readlink(path)
                if path.is_symlink()
                else (path.read_bytes() if path.is_file() else "dir")
            )
    return seen


ATTACKS = {
    "hook": "echo 'touch /pwned' > sub/.git/hooks/post-checkout; chmod +x sub/.git/hooks/post-checkout",
    "hooks-path": "printf '[core]\\n\\thooksPath = /tmp/h\\n' >> sub/.git/config",
    "git-config": "git -C sub config core.fsmonitor 'touch /pwned' || echo git-refused",
    "deep": "echo x > deep/a/b/c/.git/hooks/pre-commit",
    "rho-config": "echo '[sandbox]\nmode = \"off\"' > sub2/.rho/config.toml",
    "rho-new-file": "echo x > sub2/.rho/trusted.toml",
    "through-link": "echo x > sublink/.git/hooks/post-checkout; echo y >> sublink/.git/config",
    "new-link": "ln -s sub/.git g && echo x > g/hooks/post-merge",
    "absolute": "echo x > $PWD/sub/.git/hooks/pre-push",
    "gitdir-file-target": "echo x > gitstuff/hooks/post-checkout; echo y >> gitstuff/config",
    "gitdir-file-itself": "echo 'gitdir: /tmp/evil' > sub3/.git",
    "gitdir-symlink-target": "echo x > gitlinked/hooks/post-checkout",
    "bare": "echo x > vendor/lib.git/hooks/post-update; echo y >> vendor/lib.git/config",
    "remove": "rm -rf sub/.git sub2/.rho gitstuff vendor/lib.git",
    "replace": "mv sub/.git sub/old-git; mv sub2/.rho sub2/old-rho",
    "remount": "mount -o remount,rw sub/.git; umount sub/.git; echo x > sub/.git/hooks/a",
    "python": "python3 -c \"open('sub/.git/hooks/post-checkout', 'w').write('x')\"",
}


def test_an_approved_command_cannot_change_a_nested_repository(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(project)
    # Every attack in one command (one rho): each line says whether its own step held.
    lines = [
        f"( {command} ) >/dev/null 2>&1; echo {name} done" for name, command in ATTACKS.items()
    ]
    result = run(start_rho, server, "\n".join(lines))
    assert result["output"].startswith("exit_code: 0")
    for name in ATTACKS:
        assert f"{name} done" in result["output"], name
    after = snapshot(project)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed == set(), (changed, result["output"])


def test_a_repository_created_by_a_command_is_reported(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    command = (
        "mkdir -p fresh/.git/hooks && echo x > fresh/.git/hooks/pre-commit; "
        "mkdir -p other/.rho; mv sub moved; mkdir -p \"$(printf 'ev\\nil')/.git\"; echo ok"
    )
    result = run(start_rho, server, command)
    output = result["output"]
    assert output.startswith("exit_code: 0\nok\n")
    note = output.splitlines()[-1]
    assert note.startswith("[sandbox: the command created ")
    for created in ("fresh/.git", "other/.rho", "moved/.git", "ev\\nil/.git"):
        assert created in note
    assert "sub2/.rho" not in note and "gitstuff" not in note


def test_nothing_is_reported_when_nothing_was_created(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    result = run(start_rho, server, "mkdir -p build && echo made > build/out && echo ok")
    assert result["output"] == "exit_code: 0\nok\n"
    assert (project / "build" / "out").read_text() == "made\n"


GIT_PATHS = ["gitstuff/hooks/post-checkout", "gitstuff/config", "vendor/lib.git/hooks/post-update"]


def test_the_file_tools_refuse_a_git_directory_by_another_name(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    # One rho makes every write, one model turn each (a rho per path cost ~0.7 s of CPU
    # each); the project is checked unchanged after each.
    before = snapshot(project)
    for path in GIT_PATHS:
        server.add(tool_call_reply("write_file", {"path": path, "content": "touch /pwned\n"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt = rho.request("prompt", {"message": "go"})
    for path in GIT_PATHS:
        result = rho.notification("tool/result", timeout=60)["params"]
        assert result["is_error"] is True, path
        assert "inside the git directory" in result["output"], (path, result["output"])
        assert snapshot(project) == before, path
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    assert rho.finish() == 0
