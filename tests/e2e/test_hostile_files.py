"""Files that would hang or crash rho, through the real `rho` process: FIFOs where rho expects
a file (its config, trust store, grants, memory database, sessions, context files, ignore
files, extension modules) and TOML nested thousands deep. Each is refused with a clear line,
and rho either exits 2 at startup or answers and ends on end of input."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

DEEP = 3000

#: Nested TOML that ends `tomllib` in a RecursionError, and nesting that parses but is absurd.
NESTED_TOML = {
    "array": "a = " + "[" * DEEP + "]" * DEEP + "\n",
    "inline table": "a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n",
    "array of inline tables": "a = " + "[{b = " * DEEP + "1" + "}]" * DEEP + "\n",
    "parses but too deep": "a = " + "[" * 200 + "]" * 200 + "\n",
    "deep under a known table": "[agent]\nx = " + "[" * DEEP + "]" * DEEP + "\n",
}


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _failed_cleanly(process: RhoProcess) -> str:
    """rho exited 2 with one `rho: error:` line and nothing on stdout; that line."""
    assert process.finish() == 2
    stderr = process.stderr_text()
    assert "Traceback" not in stderr
    assert process.raw == []
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rho: error: "), stderr
    return lines[0]


# ── nested TOML (item 11) ───────────────────────────────────────────────────


@pytest.mark.parametrize("shape", sorted(NESTED_TOML))
@pytest.mark.parametrize("which", ["user", "project"])
def test_deeply_nested_config_is_exit_2_naming_the_file(  # type: ignore[no-untyped-def]
    start_rho, home: Path, project: Path, which: str, shape: str
) -> None:
    folder = home if which == "user" else project
    config = folder / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(NESTED_TOML[shape])
    line = _failed_cleanly(start_rho("--ephemeral"))
    assert line.startswith(f"rho: error: {config}: invalid TOML: ")
    assert "nested" in line


def test_deeply_nested_config_stops_rho_trust_and_plugin_listing(  # type: ignore[no-untyped-def]
    start_rho, home: Path, project: Path
) -> None:
    config = project / ".rho" / "config.toml"
    config.parent.mkdir()
    config.write_text(NESTED_TOML["inline table"])
    line = _failed_cleanly(start_rho("--plugins"))
    assert line.startswith(f"rho: error: {config}: invalid TOML: ")


STATE_FILES = ("trusted_projects.toml", "sandbox_grants.toml")


@pytest.mark.parametrize("shape", ["array", "inline table", "parses but too deep"])
def test_deeply_nested_state_file_is_a_warning_and_rho_runs(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, shape: str
) -> None:
    # Both state files are nested in the same rho (a rho per file cost ~0.7 s of CPU).
    (home / ".rho").mkdir()
    for store in STATE_FILES:
        (home / ".rho" / store).write_text(NESTED_TOML[shape])
    server.add(tool_call_reply("run_command", {"command": "true"}), text_reply("ran"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "run"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    rho.wait_for(
        lambda m: "result" in m and isinstance(m["result"], dict) and "reply" in m["result"]
    )
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "Traceback" not in stderr
    # Grants are read only when a path is asked for: only the trust store is warned about.
    assert f"rho: warning: {home / '.rho' / STATE_FILES[0]}: invalid TOML: " in stderr


# ── FIFOs at startup (item 10) ──────────────────────────────────────────────


@pytest.mark.parametrize("which", ["user", "project"])
def test_config_as_a_fifo_is_exit_2_without_waiting(  # type: ignore[no-untyped-def]
    start_rho, home: Path, project: Path, which: str
) -> None:
    config = _fifo((home if which == "user" else project) / ".rho" / "config.toml")
    line = _failed_cleanly(start_rho("--ephemeral"))
    assert line == f"rho: error: {config}: cannot be read: is a FIFO, not a regular file"


def test_config_as_a_directory_is_exit_2(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    config = project / ".rho" / "config.toml"
    config.mkdir(parents=True)
    line = _failed_cleanly(start_rho("--ephemeral"))
    assert line == f"rho: error: {config}: cannot be read: is a directory, not a regular file"


def test_fifos_read_at_startup_are_reported_and_rho_answers(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, project: Path
) -> None:
    # One rho meets every FIFO it reads at startup besides its config (a rho per kind of
    # file cost ~0.7 s of CPU): the state files (a warning), the context files (left out
    # with a note) and extension files (reported; the other extensions load).
    trust_store, _ = (_fifo(home / ".rho" / store) for store in STATE_FILES)
    # A project config makes rho consult the trust store at startup.
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("[agent]\nmax_iterations = 5\n")
    for name in ("AGENTS.md", "CLAUDE.md", ".cursorrules", ".rho/prompt.md"):
        _fifo(project / name)
    _hostile_extensions(home / ".rho" / "extensions")
    server.add(text_reply("hello"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("getState")["result"]
    listed = {e["name"]: e for e in rho.call("listExtensions")["result"]["extensions"]}
    assert listed["good"]["loaded"] is True
    assert listed["importer"]["state"] == "failed" and "lib.ts" in listed["importer"]["error"]
    assert "single" not in listed and "entry-fifo" not in listed
    reply = rho.call("prompt", {"message": "hi"})
    assert reply["result"]["reply"] == "hello"
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert f"{trust_store}: cannot be read (is a FIFO, not a regular file)" in stderr
    assert "context file AGENTS.md left out: path 'AGENTS.md' is a FIFO" in stderr
    assert "Traceback" not in stderr


GOOD_EXTENSION = (
    "export default { name: 'good', tools: [{ name: 'good_tool', description: 'x', "
    "risk: 'read', execute: () => 'ran' }] };\n"
)


def _hostile_extensions(extensions: Path) -> None:
    """Extensions with FIFOs for files, next to one good extension."""
    (extensions / "importer").mkdir(parents=True)
    (extensions / "importer" / "mod.ts").write_text(
        "import { x } from './lib.ts';\nexport default { name: 'importer' + x };\n"
    )
    _fifo(extensions / "importer" / "lib.ts")
    _fifo(extensions / "single.ts")  # an entry that is a FIFO is no extension at all
    (extensions / "entry-fifo").mkdir()
    _fifo(extensions / "entry-fifo" / "mod.ts")
    (extensions / "good.ts").write_text(GOOD_EXTENSION)


def test_a_fifo_among_the_sessions_or_as_a_lock_file_is_refused(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path
) -> None:
    # One saved session serves both checks (saving one takes a rho of its own): a FIFO
    # among the sessions is skipped by listSessions and refused by resumeSession, and a
    # FIFO as the session's lock file is refused at startup and by resumeSession.
    server.add(text_reply("saved"))
    first = start_scripted(start_rho, server)
    first.call("prompt", {"message": "hi"})
    assert first.finish() == 0
    (folder,) = (home / ".rho" / "sessions").iterdir()
    (session,) = folder.glob("*.jsonl")
    fifo = _fifo(folder / "1_00000000-0000-0000-0000-000000000000.jsonl")
    _fifo(session.with_name(session.name + ".lock"))
    line = _failed_cleanly(start_rho("--session", str(session)))
    assert line.startswith(f"rho: error: cannot open session {session}: ")
    assert "is a FIFO, not a regular file" in line
    rho = start_scripted(start_rho, server, "--ephemeral")
    sessions = rho.call("listSessions")["result"]["sessions"]
    assert len(sessions) == 1 and str(fifo) not in json.dumps(sessions)
    response = rho.call("resumeSession", {"path": str(fifo)})
    assert "error" in response and "FIFO" in response["error"]["message"]
    error = rho.call("resumeSession", {"path": str(session)})["error"]
    assert "FIFO" in error["message"]
    assert rho.finish() == 0


def test_resuming_a_fifo_session_at_startup_is_exit_2(  # type: ignore[no-untyped-def]
    start_rho, tmp_path: Path
) -> None:
    fifo = _fifo(tmp_path / "s.jsonl")
    line = _failed_cleanly(start_rho("--session", str(fifo)))
    assert "FIFO" in line


# ── FIFOs met while working (item 10) ───────────────────────────────────────


def _enable_memory(project: Path) -> None:
    config = project / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[memory]\nenabled = true\n")


MEMORY_FILES = ("memory.db", "memory.db-wal", "memory.db-journal")


def test_memory_database_as_a_fifo_is_an_error_answer_and_rho_ends_on_eof(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    # One rho meets each FIFO in turn (a rho per file cost ~0.7 s of CPU): the knowledge
    # base is opened anew on each use, and a refused one leaves nothing behind.
    _enable_memory(project)
    (project / "docs.md").write_text("# Docs\n\nStaging listens on 8443.\n")
    _fifo(project / ".rho" / MEMORY_FILES[0])  # the first is there when rho starts
    rho = start_scripted(start_rho, server, "--ephemeral")
    for index, name in enumerate(MEMORY_FILES):
        fifo = project / ".rho" / name
        if index:
            _fifo(fifo)
        assert sorted(p.name for p in (project / ".rho").iterdir()) == ["config.toml", name]
        error = rho.call("ingestMemory", {"path": "docs.md"})["error"]
        assert (
            f"{fifo}: is a FIFO, not a regular file; refusing to use it as memory"
            in error["message"]
        ), name
        server.add(
            tool_call_reply("memory", {"operation": "search", "query": "staging"}),
            text_reply("no memory"),
        )
        seen = len(rho.seen)
        assert rho.call("prompt", {"message": "search"})["result"]["reply"] == "no memory"
        (result,) = _results(rho, seen)
        assert result["is_error"] is True and "FIFO" in result["output"], (name, result)
        fifo.unlink()
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()


IGNORE_FILES = (".gitignore", ".ignore", ".rgignore", "sub/.gitignore")


def test_ignore_file_as_a_fifo_does_not_hang_the_file_tools(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    # rho's own reading of ignore files (the fallback walk, list_dir); ripgrep opens the
    # ignore files it meets itself, by path. One rho meets each FIFO in turn (a rho per
    # file cost ~0.7 s of CPU): the walks read the ignore files anew each time.
    (project / "sub").mkdir()
    (project / "sub" / "found.txt").write_text("needle\n")
    _fifo(project / IGNORE_FILES[0])  # the first is there when rho starts
    rho = start_scripted(start_rho, server, "--ephemeral", env={"RHO_RG": ""})
    for index, name in enumerate(IGNORE_FILES):
        fifo = project / name
        if index:
            _fifo(fifo)
        server.add(
            tool_call_reply("find_files", {"pattern": "*.txt"}),
            tool_call_reply("search_files", {"pattern": "needle"}),
            tool_call_reply("list_dir", {"path": "."}),
            text_reply("done"),
        )
        seen = len(rho.seen)
        assert rho.call("prompt", {"message": "look"})["result"]["reply"] == "done", name
        results = _results(rho, seen)
        assert [r["is_error"] for r in results] == [False, False, False], (name, results)
        assert "sub/found.txt" in results[0]["output"], (name, results)
        assert "needle" in results[1]["output"], (name, results)
        fifo.unlink()
    assert rho.finish() == 0


def _results(rho: RhoProcess, start: int = 0) -> list[dict[str, Any]]:
    """The `tool/result` params among the messages seen from `start` on."""
    return [m["params"] for m in rho.seen[start:] if m.get("method") == "tool/result"]
