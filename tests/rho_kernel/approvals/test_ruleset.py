"""The rules in force: read with where they came from, checked against their tools, deny
before allow, and PowerShell lines left to the approval gate."""

from __future__ import annotations

import pytest
from approval_tools import MEMORY, ROOT, RUN, WRITE

from rho_kernel.approvals.rules import RuleError
from rho_kernel.approvals.ruleset import ApprovalRules
from rho_kernel.security.commands import CommandPolicy


def test_rules_keep_where_they_came_from_and_deny_beats_allow() -> None:
    rules = ApprovalRules.read(
        allow=[("run_command(git:*)", "--allow"), ("memory", "[approval] allow")],
        deny=[("run_command(git push:*)", "[approval] deny")],
    )
    push = {"command": "git push"}
    denial = rules.denying(RUN, push, root=ROOT)
    assert denial is not None and (denial.rule.text, denial.source) == (
        "run_command(git push:*)",
        "[approval] deny",
    )
    allowed = rules.allowing(RUN, {"command": "git log"}, root=ROOT, policy=CommandPolicy())
    assert allowed is not None and allowed.source == "--allow"
    assert rules.denying(RUN, {"command": "git log"}, root=ROOT) is None
    assert rules.allowing(MEMORY, {}, root=ROOT, policy=None) is not None
    assert rules.allowing(WRITE, {"path": "a"}, root=ROOT, policy=None) is None


def test_a_rule_that_cannot_be_read_names_where_it_was_given() -> None:
    with pytest.raises(RuleError, match=r"^--deny: rule 'run_command\(x' opens"):
        ApprovalRules.read(deny=[("run_command(x", "--deny")])


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("run_command(ls | wc:*)", "is not one plain command"),
        ("write_file(/etc/**)", "is not relative to the project root"),
        ("memory(recall)", "memory calls are not matched on a command or a path"),
    ],
)
def test_rules_are_checked_against_the_tools_they_name(rule: str, problem: str) -> None:
    rules = ApprovalRules.read(allow=[(rule, "[approval] allow")])
    with pytest.raises(RuleError, match=problem):
        rules.check_against([RUN, WRITE, MEMORY])
    ApprovalRules.read(allow=[("other_tool(anything)", "--allow")]).check_against([RUN])


def test_powershell_lines_are_never_allowed_by_a_command_rule() -> None:
    rules = ApprovalRules.read(
        allow=[("run_command(git:*)", "--allow")], deny=[("run_command(rm:*)", "--deny")]
    )
    pwsh = ApprovalRules(rules.allow, rules.deny, shell="pwsh")
    assert pwsh.allowing(RUN, {"command": "git log"}, root=ROOT, policy=None) is None
    assert pwsh.denying(RUN, {"command": "rm -r x"}, root=ROOT) is not None
    bare = ApprovalRules.read(allow=[("run_command", "--allow")], shell="pwsh")
    assert bare.allowing(RUN, {"command": "anything"}, root=ROOT, policy=None) is not None
