"""The rules an approval offers to remember: the narrowest useful ones, each of which reads
back as a rule covering the call it was offered for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from approval_tools import MEMORY, RUN, WRITE

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
        (RUN, {"command": "make; rm -rf x"}, []),
        (RUN, {"command": "sudo make"}, []),
        (
            WRITE,
            {"path": "src/app/main.rs"},
            ["write_file(src/app/main.rs)", "write_file(src/app/**)"],
        ),
        (WRITE, {"path": "README.md"}, ["write_file(README.md)"]),
        (WRITE, {"path": "../outside.txt"}, []),
        (WRITE, {"path": "src/[x].rs"}, []),  # pattern syntax in the path: nothing offered
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


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (RUN, {"command": "cargo test --all"}),
        (RUN, {"command": "echo 'it''s' \"$(not)\"x"}),
        (RUN, {"command": "git commit -m 'a message with spaces'"}),
        (WRITE, {"path": "docs/guide/intro.md"}),
        (WRITE, {"path": "{root}/a.txt"}),
    ],
)
def test_every_offered_rule_covers_its_call(
    tool: Tool, arguments: dict[str, Any], tmp_path: Path
) -> None:
    arguments = {k: v.replace("{root}", str(tmp_path)) for k, v in arguments.items()}
    for rule in suggested_rules(tool, arguments, tmp_path):
        rules = ApprovalRules.read(allow=[(rule.rule, rule.scope)])
        assert rules.allowing(tool, arguments, root=tmp_path, policy=None) is not None, rule
