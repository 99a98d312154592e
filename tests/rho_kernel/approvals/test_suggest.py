"""The rules an approval offers to remember: the scopes a person means (this file, this
folder, every edit in the project; this command, its prefix when it is known safe), each
labelled in words and each reading back as a rule covering the call it was offered for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from approval_tools import DELETE, EDIT, MEMORY, READ, RUN, WRITE

from rho_kernel.approvals.ruleset import ApprovalRules
from rho_kernel.approvals.suggest import SuggestedRule, suggested_rules
from rho_kernel.tools.base import Tool


@pytest.mark.parametrize(
    ("tool", "arguments", "rules"),
    [
        (
            RUN,
            {"command": "cargo test --all"},
            ["run_command(cargo test --all)", "run_command(cargo test:*)"],
        ),
        (RUN, {"command": "ls -la"}, ["run_command(ls -la)"]),
        (RUN, {"command": "echo 'a b'"}, ["run_command(echo 'a b')", "run_command(echo 'a b':*)"]),
        (RUN, {"command": "git grep -O'sh -c x' foo"}, []),  # it runs another program
        (RUN, {"command": "sed -n '1e id' f"}, ["run_command(sed -n '1e id' f)"]),  # no prefix
        (RUN, {"command": "make; rm -rf x"}, []),
        (RUN, {"command": "sudo make"}, []),
        (RUN, {"command": "printf 'a\nb'"}, []),  # a newline in a word: no rule can hold it
        (
            WRITE,
            {"path": "src/app/main.rs"},
            ["edit(src/app/main.rs)", "edit(src/app/**)", "edit(**)"],
        ),
        (EDIT, {"path": "src/app/x.rs"}, ["edit(src/app/x.rs)", "edit(src/app/**)", "edit(**)"]),
        (WRITE, {"path": "README.md"}, ["edit(README.md)", "edit(**)"]),  # no folder: the root
        (WRITE, {"path": "./README.md"}, ["edit(README.md)", "edit(**)"]),
        (WRITE, {"path": "../outside.txt"}, []),
        (WRITE, {"path": "/etc/passwd"}, []),
        (WRITE, {"path": ".git/config"}, []),
        (WRITE, {"path": "src/.rho/config.toml"}, []),
        (WRITE, {"path": "src/[x].rs"}, ["edit(src/**)", "edit(**)"]),  # the file's name: not
        (WRITE, {"path": "[x]/a.rs"}, ["edit(**)"]),  # nor a folder's name
        (DELETE, {"path": "src/a.rs"}, ["delete_file(src/a.rs)", "delete_file(src/**)"]),
        (READ, {"path": "src/a.rs"}, ["peek_file(src/a.rs)", "peek_file(src/**)"]),
        (MEMORY, {"action": "store"}, ["memory"]),
    ],
)
def test_the_offered_rules(
    tool: Tool, arguments: dict[str, Any], rules: list[str], tmp_path: Path
) -> None:
    offered = suggested_rules(tool, arguments, tmp_path)
    assert offered == tuple(
        SuggestedRule(scope, rule) for scope in ("session", "project") for rule in rules
    )


def test_a_write_in_a_nested_folder_is_offered_in_words(tmp_path: Path) -> None:
    offered = suggested_rules(WRITE, {"path": "src/app/main.rs"}, tmp_path)
    assert [(s.label, s.title) for s in offered] == [
        ("edits to src/app/main.rs", "Allow edits to src/app/main.rs for this session"),
        ("edits in src/app/", "Allow edits in src/app/ for this session"),
        ("edits in this project", "Allow edits in this project for this session"),
        ("edits to src/app/main.rs", "Always allow edits to src/app/main.rs"),
        ("edits in src/app/", "Always allow edits in src/app/"),
        ("edits in this project", "Always allow edits in this project"),
    ]


def test_a_command_is_offered_in_words(tmp_path: Path) -> None:
    offered = suggested_rules(RUN, {"command": "cargo test --all"}, tmp_path)
    assert [s.label for s in offered if s.scope == "session"] == [
        "the command cargo test --all",
        "commands starting with cargo test",
    ]
    assert [s.label for s in suggested_rules(MEMORY, {}, tmp_path)] == ["memory calls"] * 2


def test_a_label_cannot_be_disguised_by_the_path(tmp_path: Path) -> None:
    offered = suggested_rules(WRITE, {"path": "src/\u202eevil/a.txt"}, tmp_path)
    assert offered[1].rule == "edit(src/\u202eevil/**)"
    assert offered[1].label == "edits in src/\\u202eevil/"


def test_a_suggestion_is_the_same_rule_whatever_its_label(tmp_path: Path) -> None:
    [first, *_] = suggested_rules(WRITE, {"path": "a.txt"}, tmp_path)
    assert first == SuggestedRule("session", "edit(a.txt)")  # what a plugin's gate may build


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (RUN, {"command": "cargo test --all"}),
        (RUN, {"command": "echo 'it''s' \"$(not)\"x"}),
        (RUN, {"command": "git commit -m 'a message with spaces'"}),
        (WRITE, {"path": "docs/guide/intro.md"}),
        (EDIT, {"path": "docs/guide/intro.md"}),
        (WRITE, {"path": "{root}/a.txt"}),
        (DELETE, {"path": "a/b/c.txt"}),
    ],
)
def test_every_offered_rule_covers_its_call(
    tool: Tool, arguments: dict[str, Any], tmp_path: Path
) -> None:
    arguments = {k: v.replace("{root}", str(tmp_path)) for k, v in arguments.items()}
    for rule in suggested_rules(tool, arguments, tmp_path):
        rules = ApprovalRules.read(allow=[(rule.rule, rule.scope)])
        assert rules.allowing(tool, arguments, root=tmp_path, policy=None) is not None, rule
