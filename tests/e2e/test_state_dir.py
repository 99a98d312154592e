"""rho's state directory (`~/.rho`) through the real `rho` process: never a project root, and
never read or written by a tool, also when the project is the home directory itself.

The home directory lives under /var/tmp here: the OS sandbox gives commands a private /tmp.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rho_process import RHO, RhoProcess, rho_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

SECRET = "SESSION-OF-ANOTHER-PROJECT"
USER_CONFIG = "[agent]\nmax_iterations = 30\n# USER-CONFIG-MARKER\n"


@pytest.fixture
def home(outside_tmp: Path) -> Path:
    """A home whose `~/.rho` holds the user's config and another project's session."""
    path = outside_tmp / "home"
    sessions = path / ".rho" / "sessions" / "0123456789abcdef"
    sessions.mkdir(parents=True)
    (sessions / "1_other.jsonl").write_text(SECRET + "\n")
    (path / ".rho" / "config.toml").write_text(USER_CONFIG)
    return path.resolve()


def _refused_at_startup(process: RhoProcess, root: Path) -> str:
    assert process.finish() == 2
    assert process.raw == []
    stderr = process.stderr_text()
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"rho: error: {root} is")
    assert "rho's own state directory" in lines[0] and "--root" in lines[0]
    return lines[0]


# ── refusing to start there ─────────────────────────────────────────────────


@pytest.mark.parametrize("where", [".rho", ".rho/sessions", ".rho/sessions/0123456789abcdef"])
def test_starting_inside_the_state_directory_is_refused(  # type: ignore[no-untyped-def]
    start_rho, home: Path, where: str
) -> None:
    cwd = home / where
    line = _refused_at_startup(start_rho("--ephemeral", cwd=cwd), cwd)
    if where == ".rho":
        assert line.startswith(f"rho: error: {cwd} is rho's own state directory")


def test_a_marker_inside_the_state_directory_does_not_make_it_a_project(  # type: ignore[no-untyped-def]
    start_rho, home: Path
) -> None:
    (home / ".rho" / ".git").mkdir()  # the user keeps ~/.rho under version control
    _refused_at_startup(start_rho("--ephemeral", cwd=home / ".rho" / "sessions"), home / ".rho")


@pytest.mark.parametrize("how", ["plain", "link", "link below", "dotdot", "plugins"])
def test_root_flag_pointing_into_the_state_directory_is_refused(  # type: ignore[no-untyped-def]
    start_rho, home: Path, project: Path, how: str
) -> None:
    (project / "state-link").symlink_to(home / ".rho")
    given = {
        "plain": str(home / ".rho"),
        "link": str(project / "state-link"),
        "link below": str(project / "state-link" / "sessions"),
        "dotdot": str(home / ".rho" / "sessions" / ".."),
        "plugins": str(home / ".rho"),
    }[how]
    extra = ["--plugins"] if how == "plugins" else ["--ephemeral"]
    process = start_rho(*extra, "--root", given)
    canonical = Path(given).resolve()
    _refused_at_startup(process, canonical)


def test_rho_trust_refuses_the_state_directory(home: Path) -> None:
    env = rho_env(home)
    result = subprocess.run(
        [RHO, "trust"], cwd=home / ".rho", env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "rho's own state directory" in result.stderr and "Traceback" not in result.stderr
    assert not (home / ".rho" / "trusted_projects.toml").exists()


# ── tools with the home directory as the project ────────────────────────────


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def _run_tools(
    start_rho: Any,
    server: ScriptedServer,
    home: Path,
    calls: list[Any],
    env: dict[str, str] | None = None,
) -> RhoProcess:
    """Run the tool calls with the home directory as the root, approving every one."""
    server.add(*calls, text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--root", str(home), env=env)
    prompt = rho.request("prompt", {"message": "look around"})
    while True:
        message = rho.wait_for(
            lambda m: m.get("method") == "approval/request" or m.get("id") == prompt
        )
        if message.get("id") == prompt:
            assert message["result"]["reply"] == "done"
            return rho
        rho.answer_approval(message["params"])


READS = [
    ("read_file", {"path": ".rho/config.toml"}),
    ("read_file", {"path": ".rho/sessions/0123456789abcdef/1_other.jsonl"}),
    ("read_file", {"path": "link/0123456789abcdef/1_other.jsonl"}),
    ("read_file", {"path": "work/../.rho/config.toml"}),
    ("read_file", {"path": "{home}/.rho/config.toml"}),
    ("batch_read", {"paths": [".rho/config.toml", "link/0123456789abcdef/1_other.jsonl"]}),
    ("list_dir", {"path": ".rho"}),
    ("list_dir", {"path": "link"}),
    ("find_files", {"pattern": "*", "path": ".rho"}),
    ("find_files", {"pattern": "*.jsonl", "path": "link"}),
    ("search_files", {"pattern": "SESSION-OF", "path": ".rho"}),
    ("search_files", {"pattern": "SESSION-OF", "path": "link"}),
]
WALKS = [  # the whole home: the state directory is left out
    ("find_files", {"pattern": "*"}),
    ("search_files", {"pattern": "SESSION-OF|USER-CONFIG-MARKER|plain"}),
    ("list_dir", {"path": ".", "recursive": True}),
]
STATE_WRITES = [
    ("write_file", {"path": ".rho/config.toml", "content": "[sandbox]\nmode = 'off'\n"}),
    ("write_file", {"path": "state/config.toml", "content": "[sandbox]\nmode = 'off'\n"}),
    ("write_file", {"path": "state/trusted_projects.toml", "content": "x = 1\n"}),
    ("edit_file", {"path": "state/config.toml", "edits": [{"old_text": "30", "new_text": "99"}]}),
]
#: A command that tries to read the state directory (run only where bubblewrap is).
COMMAND = (
    "run_command",
    {
        "command": "cat ~/.rho/config.toml ~/.rho/sessions/*/*.jsonl .rho/config.toml; "
        "ls -A ~/.rho .rho; echo end"
    },
)


@pytest.mark.parametrize("rg", ["rg", "python"])
def test_no_tool_reads_or_writes_the_state_directory_of_a_home_project(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, rg: str
) -> None:
    # One rho makes every call, reads then writes then a command (a rho per call, or per
    # kind of call, cost ~0.7 s of CPU each); what is checked after all of them held
    # after each one.
    (home / "link").symlink_to(".rho/sessions")
    (home / "state").symlink_to(".rho")
    (home / "work").mkdir()
    (home / "work" / "notes.txt").write_text("plain notes\n")
    commands = [COMMAND] if shutil.which("bwrap") else []  # bubblewrap is not installed
    calls = [(name, {k: _at(v, home) for k, v in args.items()}) for name, args in READS]
    calls += [*WALKS, *STATE_WRITES, *commands]
    env = {"RHO_RG": ""} if rg == "python" else None
    rho = _run_tools(start_rho, server, home, [tool_call_reply(*call) for call in calls], env)
    results = _results(rho)
    assert len(results) == len(calls)
    for call, result in zip(calls, results, strict=True):
        assert SECRET not in result["output"], (call, result)
        assert "USER-CONFIG-MARKER" not in result["output"], (call, result)
    for (name, _), result in zip(READS, results, strict=False):
        if name == "batch_read":  # a batch answers per file
            assert result["output"].count("rho's own state directory") == 2, result
        else:
            assert result["is_error"] is True, result
            assert "rho's own state directory" in result["output"], result
    find, search, listing = results[len(READS) : len(READS) + len(WALKS)]
    assert "work/notes.txt" in find["output"] and "plain notes" in search["output"]
    assert "1_other.jsonl" not in listing["output"]
    writes = results[len(READS) + len(WALKS) : len(READS) + len(WALKS) + len(STATE_WRITES)]
    for call, result in zip(STATE_WRITES, writes, strict=True):
        assert result["is_error"] is True, (call, result)
    if commands:
        _check_command_output(results[-1]["output"])
    assert rho.finish() == 0
    assert (home / ".rho" / "config.toml").read_text() == USER_CONFIG
    assert not (home / ".rho" / "trusted_projects.toml").exists()


def _at(value: Any, home: Path) -> Any:
    return value.replace("{home}", str(home)) if isinstance(value, str) else value


def _check_command_output(output: str) -> None:
    """The command of a home project read nothing of the state directory, and ran."""
    assert "No such file or directory" in output
    listed = output.split("stderr:")[0]
    assert "config.toml" not in listed and "sessions" not in listed  # ~/.rho shows empty
    assert "\nend\n" in output


@pytest.mark.parametrize("rg", ["rg", "python"])
def test_a_state_directory_linked_to_an_ordinary_folder_is_not_walked(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, outside_tmp: Path, rg: str
) -> None:
    """`~/.rho` → `~/dotfiles/rho`: the real folder has an ordinary name, so the walks of
    find_files, search_files and list_dir meet it; they must not show what is in it. (The
    folder has a name ripgrep walks, and even `[x]` in it cannot widen the rule.)"""
    home = outside_tmp / "linked-home"
    real = home / "dotfiles" / "rho [x]*"
    (real / "sessions" / "0123456789abcdef").mkdir(parents=True)
    (real / "sessions" / "0123456789abcdef" / "1_other.jsonl").write_text(SECRET + "\n")
    (home / ".rho").symlink_to(real)
    (home / "dotfiles" / "vimrc").write_text("set nocompatible\n")
    server.add(
        tool_call_reply("find_files", {"pattern": "*"}),
        tool_call_reply("search_files", {"pattern": "SESSION-OF|nocompatible"}),
        tool_call_reply("list_dir", {"path": "dotfiles", "recursive": True}),
        tool_call_reply(
            "read_file", {"path": "dotfiles/rho [x]*/sessions/0123456789abcdef/1_other.jsonl"}
        ),
        text_reply("done"),
    )
    rho = RhoProcess(
        ["--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral", "--root", str(home)],
        cwd=home,
        home=home,
        env={"RHO_RG": ""} if rg == "python" else None,
    )
    try:
        assert rho.read()["method"] == "ready"
        assert rho.call("prompt", {"message": "look"})["result"]["reply"] == "done"
        find, search, listing, read = _results(rho)
        for result in (find, search, listing, read):
            assert SECRET not in result["output"]
        assert "dotfiles/vimrc" in find["output"] and "1_other" not in find["output"]
        assert "nocompatible" in search["output"]
        assert "sessions" not in listing["output"]
        assert read["is_error"] is True and "rho's own state directory" in read["output"]
        assert rho.finish() == 0
    finally:
        rho.kill()


def test_ingest_memory_of_a_home_project_leaves_the_state_directory_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path
) -> None:
    (home / ".rho" / "config.toml").write_text(USER_CONFIG + "[memory]\nenabled = true\n")
    (home / "link").symlink_to(".rho/sessions")
    (home / "notes.md").write_text("# Notes\n\nplain notes\n")
    rho = start_scripted(start_rho, server, "--ephemeral", "--root", str(home))
    # One rho ingests every path (a rho per path cost ~0.7 s of CPU each): the search after
    # all of them finds nothing of the state directory from any of them.
    for path in (".rho", ".rho/sessions", "link", "."):
        response = rho.call("ingestMemory", {"path": path})
        if path == ".":
            assert response["result"]["added"] >= 1, response
        else:
            assert "rho's own state directory" in response["error"]["message"], response
    server.add(
        tool_call_reply("memory", {"operation": "search", "query": "SESSION"}),
        text_reply("done"),
    )
    rho.call("prompt", {"message": "search"})
    (result,) = _results(rho)
    assert SECRET not in result["output"]
    assert rho.finish() == 0
