"""Claude Code's tool names and inputs for rho's tools, and a hook's rewrite read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_hooks.names import CLAUDE_NAMES, claude_input, matches, rho_arguments, tool_names

ROOT = Path("/work/project")


def test_tools_with_a_claude_name_are_tried_by_it_first() -> None:
    assert tool_names("run_command") == ("Bash", "run_command")
    assert tool_names("edit_file") == ("Edit", "edit_file")
    assert tool_names("mcp__github__search") == ("mcp__github__search",)
    assert tool_names("batch_read") == ("batch_read",)
    assert set(CLAUDE_NAMES.values()) == {"Bash", "Read", "Write", "Edit", "Grep", "Glob", "LS"}


@pytest.mark.parametrize(
    ("matcher", "tool", "through"),
    [
        ("", "run_command", "Bash"),
        ("*", "mcp__s__t", "mcp__s__t"),
        ("Bash", "run_command", "Bash"),
        ("run_command", "run_command", "run_command"),
        ("Edit|Write", "write_file", "Write"),
        ("Edit|Write", "edit_file", "Edit"),
        (".*_file", "edit_file", "edit_file"),
        ("mcp__github__.*", "mcp__github__search", "mcp__github__search"),
        ("bash", "run_command", None),  # case-sensitive
        ("Bas", "run_command", None),  # the whole name, not a part
        ("Read", "read_file_extra", None),
        ("Edit", "write_file", None),
        ("(", "run_command", None),  # never compiles: matches nothing
    ],
)
def test_matchers_follow_claude_codes_rule(matcher: str, tool: str, through: str | None) -> None:
    assert matches(matcher, tool_names(tool)) == through


def test_a_match_all_with_no_names_matches_nothing() -> None:
    assert matches("", ()) is None


@pytest.mark.parametrize(
    ("tool", "arguments", "added"),
    [
        ("run_command", {"command": "ls"}, {}),
        (
            "read_file",
            {"path": "src/../a.py", "offset": 3, "limit": 9},
            {"file_path": "/work/project/a.py"},
        ),
        ("read_file", {"path": "/etc/hosts"}, {"file_path": "/etc/hosts"}),
        ("write_file", {"path": "a.txt", "content": "hi"}, {"file_path": "/work/project/a.txt"}),
        (
            "edit_file",
            {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]},
            {"file_path": "/work/project/a.py", "old_string": "x", "new_string": "y"},
        ),
        (
            "search_files",
            {"pattern": "TODO", "path": "src", "glob": "*.py", "ignore_case": True},
            {"path": "/work/project/src", "-i": True},
        ),
        ("search_files", {"pattern": "TODO"}, {}),
        ("find_files", {"pattern": "*.rs", "path": "crates"}, {"path": "/work/project/crates"}),
        ("find_files", {"pattern": "*.rs"}, {}),
        ("list_dir", {"path": "docs"}, {"path": "/work/project/docs"}),
        ("list_dir", {}, {"path": "/work/project"}),
        ("mcp__s__t", {"path": "a"}, {}),
    ],
)
def test_a_hooks_input_has_claude_codes_names_next_to_rhos(
    tool: str, arguments: dict[str, Any], added: dict[str, Any]
) -> None:
    assert claude_input(tool, arguments, ROOT) == {**arguments, **added}


@pytest.mark.parametrize(
    "edits",
    [
        [{"old_text": "a", "new_text": "b"}, {"old_text": "c", "new_text": "d"}],
        [{"op": "replace", "pos": "3#ABCD", "lines": ["x"]}],
        [],
        "not a list",
    ],
)
def test_only_a_single_exact_edit_has_old_and_new_string(edits: Any) -> None:
    given = claude_input("edit_file", {"path": "a.py", "edits": edits}, ROOT)
    assert "old_string" not in given and "new_string" not in given
    assert given["edits"] == edits


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("run_command", {"command": "ls", "timeout_secs": 5}),
    ("read_file", {"path": "src/../a.py", "offset": 3, "hashline": False}),
    ("read_file", {"path": "/work/project/a.py"}),
    ("write_file", {"path": "a.txt", "content": "hi"}),
    ("edit_file", {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]}),
    ("edit_file", {"path": "a.py", "edits": [{"op": "delete", "pos": "1#ABCD"}]}),
    ("search_files", {"pattern": "T", "path": "src", "ignore_case": True, "glob": "*.py"}),
    ("find_files", {"pattern": "*.rs"}),
    ("list_dir", {}),
    ("list_dir", {"path": "./docs", "recursive": True}),
    ("mcp__s__t", {"q": 1}),
]


@pytest.mark.parametrize(("tool", "arguments"), CALLS)
def test_an_input_handed_back_unchanged_gives_rhos_arguments_as_they_were(
    tool: str, arguments: dict[str, Any]
) -> None:
    given = claude_input(tool, arguments, ROOT)
    assert rho_arguments(tool, given, arguments, ROOT) == arguments


def test_a_rewritten_file_path_becomes_rhos_path() -> None:
    original = {"path": "a.py", "hashline": False}
    updated = {**claude_input("read_file", original, ROOT), "file_path": "/work/project/b/c.py"}
    assert rho_arguments("read_file", updated, original, ROOT) == {
        "path": "b/c.py",
        "hashline": False,
    }


def test_a_path_outside_the_project_stays_absolute_for_the_sandbox_to_refuse() -> None:
    original = {"path": "a.txt", "content": "x"}
    updated = {**claude_input("write_file", original, ROOT), "file_path": "/etc/passwd"}
    assert rho_arguments("write_file", updated, original, ROOT)["path"] == "/etc/passwd"
    updated["file_path"] = "/work/project-other/a"
    assert rho_arguments("write_file", updated, original, ROOT)["path"] == "/work/project-other/a"
    updated["file_path"] = "/work/project/../etc/a"
    assert rho_arguments("write_file", updated, original, ROOT)["path"] == "/work/project/../etc/a"


def test_a_hook_that_only_knows_claude_code_may_leave_rhos_keys_out() -> None:
    original = {"path": "a.py", "content": "old"}
    updated = {"file_path": "/work/project/a.py", "content": "new"}
    assert rho_arguments("write_file", updated, original, ROOT) == {
        "path": "a.py",
        "content": "new",
    }


def test_rhos_name_wins_when_the_hook_changed_only_it() -> None:
    original = {"path": "a.py", "content": "x"}
    updated = {**claude_input("write_file", original, ROOT), "path": "b.py"}
    assert rho_arguments("write_file", updated, original, ROOT)["path"] == "b.py"


def test_the_claude_name_wins_when_the_hook_changed_both() -> None:
    original = {"path": "a.py", "content": "x"}
    updated = {**claude_input("write_file", original, ROOT), "path": "b.py"}
    updated["file_path"] = "/work/project/c.py"
    assert rho_arguments("write_file", updated, original, ROOT)["path"] == "c.py"


def test_a_rewritten_old_or_new_string_becomes_one_exact_edit() -> None:
    original = {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]}
    updated = {**claude_input("edit_file", original, ROOT), "new_string": "z"}
    assert rho_arguments("edit_file", updated, original, ROOT) == {
        "path": "a.py",
        "edits": [{"old_text": "x", "new_text": "z"}],
    }


def test_old_and_new_string_added_to_a_hashline_edit_replace_its_edits() -> None:
    original = {"path": "a.py", "edits": [{"op": "delete", "pos": "1#ABCD"}]}
    updated = {**claude_input("edit_file", original, ROOT), "old_string": "a", "new_string": "b"}
    assert rho_arguments("edit_file", updated, original, ROOT)["edits"] == [
        {"old_text": "a", "new_text": "b"}
    ]


def test_rewritten_edits_stand_when_old_and_new_string_were_left_alone() -> None:
    original = {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]}
    edits = [{"old_text": "x", "new_text": "w"}, {"old_text": "p", "new_text": "q"}]
    updated = {**claude_input("edit_file", original, ROOT), "edits": edits}
    assert rho_arguments("edit_file", updated, original, ROOT)["edits"] == edits


def test_search_options_are_read_back() -> None:
    original = {"pattern": "T", "path": "src"}
    updated = {**claude_input("search_files", original, ROOT), "-i": True}
    updated["path"] = "/work/project/lib"
    assert rho_arguments("search_files", updated, original, ROOT) == {
        "pattern": "T",
        "path": "lib",
        "ignore_case": True,
    }


def test_a_list_dir_of_the_root_given_as_the_root_stays_without_a_path() -> None:
    updated = {**claude_input("list_dir", {}, ROOT), "recursive": True}
    assert rho_arguments("list_dir", updated, {}, ROOT) == {"recursive": True}
    updated["path"] = "/work/project/src"
    assert rho_arguments("list_dir", updated, {}, ROOT) == {"recursive": True, "path": "src"}


def test_a_relative_path_from_a_hook_is_taken_as_rhos() -> None:
    original = {"path": "a.py"}
    updated = {**claude_input("read_file", original, ROOT), "file_path": "b.py"}
    assert rho_arguments("read_file", updated, original, ROOT) == {"path": "b.py"}


def test_an_mcp_tools_rewrite_is_taken_as_it_is() -> None:
    assert rho_arguments("mcp__s__t", {"file_path": "/x"}, {"q": 1}, ROOT) == {"file_path": "/x"}
