"""list_dir, find_files, search_files, batch_read and session_summary through the real `rho`
process: read tools run without approval and their results reach the client."""

from __future__ import annotations

from typing import Any

import pytest
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import text_reply, tool_call_reply

TREE = {
    "src/main.rs": "fn main() {\n    -needle();\n}\n",
    "target/out.rs": "-needle built\n",
    ".env": "-needle hidden\n",
    ".gitignore": "target/\n",
}


def _rho(shared_rho: Any, rg: str = "bundled") -> SharedRho:
    """The module's rho (one per `rg`: a rho per test cost ~0.7 s of CPU), fresh for the
    test, its project holding TREE and nothing else."""
    shared = shared_rho("--ephemeral", env=None if rg == "bundled" else {"RHO_RG": ""})
    for name, text in TREE.items():
        (shared.project / name).parent.mkdir(parents=True, exist_ok=True)
        (shared.project / name).write_text(text)
    return shared


def _run_tool(shared: SharedRho, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    rho, server = shared.fresh().rho, shared.server
    server.add(tool_call_reply(name, arguments), text_reply("done"))
    response = rho.call("prompt", {"message": "go"})
    assert response["result"]["reply"] == "done"
    assert "approval/request" not in rho.methods_seen()
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    return result


@pytest.mark.parametrize("rg", ["bundled", ""])
def test_search_files_runs_through_the_process(shared_rho: Any, rg: str) -> None:
    result = _run_tool(_rho(shared_rho, rg), "search_files", {"pattern": "-needle"})
    assert result["is_error"] is False
    assert result["output"] == "src/main.rs:2:     -needle();"


@pytest.mark.parametrize("rg", ["bundled", ""])
def test_a_literal_paren_gets_the_escape_hint_and_fixed_strings_finds_it(
    shared_rho: Any, rg: str
) -> None:
    shared = _rho(shared_rho, rg)
    refused = _run_tool(shared, "search_files", {"pattern": "needle("})
    assert refused["is_error"] is True
    hint = refused["output"].split("\nHint: ", 1)[1]
    assert hint.startswith("`(` opens a group that is never closed") and "`needle\\(`" in hint
    assert "fixed_strings: true" in hint and "look-around" not in hint
    found = _run_tool(shared, "search_files", {"pattern": "needle(", "fixed_strings": True})
    assert (found["output"], found["is_error"]) == ("src/main.rs:2:     -needle();", False)


def test_find_files_and_list_dir(shared_rho: Any) -> None:
    shared = _rho(shared_rho)
    found = _run_tool(shared, "find_files", {"pattern": "*.rs"})
    assert found["output"] == "src/main.rs"
    listed = _run_tool(shared, "list_dir", {"recursive": True})
    assert listed["output"] == ".env\n.gitignore\nsrc/\nsrc/main.rs"


def test_search_outside_the_project_is_refused(shared_rho: Any) -> None:
    result = _run_tool(_rho(shared_rho), "search_files", {"pattern": "x", "path": "/"})
    assert result["is_error"] is True
    assert result["output"].startswith("search_files: path '/' is outside the project sandbox")


def test_batch_read_counts_only_files_read(shared_rho: Any) -> None:
    result = _run_tool(_rho(shared_rho), "batch_read", {"paths": ["src/main.rs", "nope"]})
    assert result["output"].startswith('batch_read: 1/2 files read\n\n<context file="src/main.rs">')
    assert "[2] error: 'nope' not found." in result["output"]


def test_session_summary_lists_the_real_turns(shared_rho: Any) -> None:
    result = _run_tool(_rho(shared_rho), "session_summary", {})
    lines = result["output"].split("\n")
    assert lines[0].startswith("Session history (")
    assert any(line.endswith("[user] go") for line in lines)
    assert lines[-1].endswith("[assistant] → session_summary({})")
    assert "[unknown]" not in result["output"]
