"""`[hooks]`: Claude Code's keys for one hook, an event list per event, trust for the rest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

import rho_hooks
from rho_hooks.config import EVENTS, HookCommand, HooksTable, parse_hook
from rho_kernel.frontend import constructed


def test_a_hook_has_claude_codes_keys_and_safe_defaults() -> None:
    hook = parse_hook({"command": "./check.sh"})
    assert (hook.matcher, hook.timeout, hook.on_failure) == ("", 60.0, "block")
    hook = parse_hook(
        {"command": "x", "matcher": "Edit|Write", "timeout": 5, "on_failure": "allow"}
    )
    assert (hook.matcher, hook.timeout, hook.on_failure) == ("Edit|Write", 5.0, "allow")


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({}, "command: Field required"),
        ({"command": ""}, "command"),
        ({"command": "   "}, "command is empty"),
        ({"command": "x", "timeout": 0}, "timeout"),
        ({"command": "x", "timeout": 3601}, "timeout"),
        ({"command": "x", "on_failure": "ignore"}, "on_failure"),
        ({"command": "x", "type": "command"}, "type"),
        ({"command": "x", "matcher": "Edit("}, "matcher 'Edit(' is not a regular expression"),
        ("./check.sh", "a hook is a table, not str"),
    ],
)
def test_a_wrong_hook_is_an_error_naming_the_problem(table: object, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        parse_hook(table)


@pytest.mark.parametrize("matcher", ["", "*", "Bash", "Edit|Write", "mcp__.*", "Notebook.*"])
def test_matchers_that_compile_or_match_everything_are_accepted(matcher: str) -> None:
    assert HookCommand(command="x", matcher=matcher).matcher == matcher


def test_a_plainly_valid_hook_is_made_without_a_validator_and_a_bad_matcher_is_not() -> None:
    assert constructed(HookCommand, {"command": "x", "matcher": "Bash"}) is not None
    assert constructed(HookCommand, {"command": "x", "matcher": "("}) is None
    table = {"PreToolUse": [{"command": "x", "matcher": "Bash"}], "claude_settings": True}
    made = constructed(HooksTable, table)
    assert made is not None and made.PreToolUse[0].matcher == "Bash"


def test_the_hooks_section_has_one_list_per_event_and_its_settings() -> None:
    table = HooksTable.model_validate(
        {
            "claude_settings": True,
            "max_stop_continuations": 5,
            "PreToolUse": [{"command": "a", "matcher": "Bash"}],
            "Stop": [{"command": "b"}],
        }
    )
    assert table.claude_settings and table.max_stop_continuations == 5
    assert [hook.command for hook in table.hooks("PreToolUse")] == ["a"]
    assert [hook.command for hook in table.hooks("Stop")] == ["b"]
    assert all(table.hooks(event) == [] for event in EVENTS if event not in ("PreToolUse", "Stop"))
    assert set(EVENTS) <= set(HooksTable.model_fields)
    with pytest.raises(ValueError, match="unknown hook event"):
        table.hooks("SubagentStop")


@pytest.mark.parametrize(
    "table",
    [
        {"max_stop_continuations": -1},
        {"max_stop_continuations": 101},
        {"SubagentStop": [{"command": "x"}]},
        {"PreToolUse": [{"command": "x", "matcher": "["}]},
    ],
)
def test_a_wrong_hooks_section_is_refused(table: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        HooksTable.model_validate(table)


def _write(home: Path, root: Path, user: str, project: str) -> bytes:
    (home / ".rho").mkdir(parents=True, exist_ok=True)
    (root / ".rho").mkdir(parents=True, exist_ok=True)
    (home / ".rho" / "config.toml").write_text(user)
    return project.encode()


def test_a_projects_hooks_and_claude_settings_need_trust(tmp_path: Path) -> None:
    from rho_kernel.config import loosening_settings

    home, root = tmp_path / "home", tmp_path / "project"
    user = '[[hooks.Stop]]\ncommand = "mine"\n'
    project = (
        "[hooks]\nclaude_settings = true\nmax_stop_continuations = 10\n"
        '[[hooks.Stop]]\ncommand = "mine"\n[[hooks.PreToolUse]]\ncommand = "theirs"\n'
    )
    data = _write(home, root, user, project)
    needs = loosening_settings(root, data, home=home, sections={"hooks": HooksTable})
    assert needs == [
        "hooks.claude_settings = true",
        "hooks.max_stop_continuations = 10",
        "hooks.PreToolUse",
    ]


def test_a_project_may_tighten_without_trust(tmp_path: Path) -> None:
    from rho_kernel.config import loosening_settings

    home, root = tmp_path / "home", tmp_path / "project"
    user = '[hooks]\nclaude_settings = true\n[[hooks.Stop]]\ncommand = "mine"\n'
    project = "[hooks]\nclaude_settings = false\nmax_stop_continuations = 1\n"
    data = _write(home, root, user, project)
    assert loosening_settings(root, data, home=home, sections={"hooks": HooksTable}) == []


def test_the_package_exports_its_names_on_first_use() -> None:
    from rho_hooks import config, outcome, runner, sources

    assert rho_hooks.HookCommand is config.HookCommand
    assert rho_hooks.interpret is outcome.interpret
    assert rho_hooks.run_hook is runner.run_hook
    assert rho_hooks.read_hooks is sources.read_hooks
    assert rho_hooks.__version__ == "0.1.0"
