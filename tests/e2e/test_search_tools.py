"""list_dir, find_files, search_files, batch_read and session_summary through the real `rho`
process: read tools run without approval and their results reach the client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _run_tool(
    start_rho: Any, server: ScriptedServer, name: str, arguments: dict[str, Any], **env: str
) -> dict[str, Any]:
    server.add(tool_call_reply(name, arguments), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=env or None)
    response = rho.call("prompt", {"message": "go"})
    assert response["result"]["reply"] == "done"
    assert "approval/request" not in rho.methods_seen()
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    return result


@pytest.fixture
def tree(project: Path) -> Path:
    for name, text in {
        "src/main.rs": "fn main() {\n    -needle();\n}\n",
        "target/out.rs": "-needle built\n",
        ".env": "-needle hidden\n",
        ".gitignore": "target/\n",
    }.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    return project


@pytest.mark.parametrize("rg", ["bundled", ""])
def test_search_files_runs_through_the_process(
    start_rho: Any, server: ScriptedServer, tree: Path, rg: str
) -> None:
    env = {} if rg == "bundled" else {"RHO_RG": ""}
    result = _run_tool(start_rho, server, "search_files", {"pattern": "-needle"}, **env)
    assert result["is_error"] is False
    assert result["output"] == "src/main.rs:2:     -needle();"


@pytest.mark.parametrize("rg", ["bundled", ""])
def test_a_literal_paren_gets_the_escape_hint_and_fixed_strings_finds_it(
    start_rho: Any, server: ScriptedServer, tree: Path, rg: str
) -> None:
    env = {} if rg == "bundled" else {"RHO_RG": ""}
    refused = _run_tool(start_rho, server, "search_files", {"pattern": "needle("}, **env)
    assert refused["is_error"] is True
    hint = refused["output"].split("\nHint: ", 1)[1]
    assert hint.startswith("`(` opens a group that is never closed") and "`needle\\(`" in hint
    assert "fixed_strings: true" in hint and "look-around" not in hint
    found = _run_tool(
        start_rho, server, "search_files", {"pattern": "needle(", "fixed_strings": True}, **env
    )
    assert (found["output"], found["is_error"]) == ("src/main.rs:2:     -needle();", False)


def test_find_files_and_list_dir(start_rho: Any, server: ScriptedServer, tree: Path) -> None:
    found = _run_tool(start_rho, server, "find_files", {"pattern": "*.rs"})
    assert found["output"] == "src/main.rs"
    listed = _run_tool(start_rho, server, "list_dir", {"recursive": True})
    assert listed["output"] == ".env\n.gitignore\nsrc/\nsrc/main.rs"


def test_search_outside_the_project_is_refused(
    start_rho: Any, server: ScriptedServer, tree: Path
) -> None:
    result = _run_tool(start_rho, server, "search_files", {"pattern": "x", "path": "/"})
    assert result["is_error"] is True
    assert result["output"].startswith("search_files: path '/' is outside the project sandbox")


def test_batch_read_counts_only_files_read(
    start_rho: Any, server: ScriptedServer, tree: Path
) -> None:
    result = _run_tool(start_rho, server, "batch_read", {"paths": ["src/main.rs", "nope"]})
    assert result["output"].startswith('batch_read: 1/2 files read\n\n<context file="src/main.rs">')
    assert "[2] error: 'nope' not found." in result["output"]


def test_session_summary_lists_the_real_turns(start_rho: Any, server: ScriptedServer) -> None:
    result = _run_tool(start_rho, server, "session_summary", {})
    lines = result["output"].split("\n")
    assert lines[0].startswith("Session history (")
    assert any(line.endswith("[user] go") for line in lines)
    assert lines[-1].endswith("[assistant] → session_summary({})")
    assert "[unknown]" not in result["output"]
