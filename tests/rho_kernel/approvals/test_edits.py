"""The file-edit class: `edit(…)` rules name every tool that writes the file at its path
(declared `rule_subject="path"` and `risk="write"`), and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from approval_tools import DELETE, EDIT, MEMORY, READ, RUN, WRITE, NamedTool

from rho_kernel.approvals.edits import edits_files
from rho_kernel.approvals.rules import RuleError, parse_rule
from rho_kernel.approvals.ruleset import ApprovalRules, SourcedRule
from rho_kernel.tools.base import Risk, Tool

#: A tool called `edit` that does not write a path: the class name does not reach it.
NAMED_EDIT = NamedTool("edit", None, Risk.WRITE)
#: A command tool that says it writes: not matched on a path, so not in the class.
WRITING_COMMAND = NamedTool("apply", "command", Risk.WRITE)


@pytest.mark.parametrize(
    ("tool", "member"),
    [
        (WRITE, True),
        (EDIT, True),
        (DELETE, False),
        (READ, False),
        (RUN, False),
        (MEMORY, False),
        (NAMED_EDIT, False),
        (WRITING_COMMAND, False),
    ],
)
def test_a_tool_is_in_the_class_when_it_declares_it_writes_a_path(tool: Tool, member: bool) -> None:
    assert edits_files(tool) is member


def test_a_folder_rule_covers_every_edit_in_the_folder_and_nothing_outside(
    tmp_path: Path,
) -> None:
    rules = ApprovalRules.read(allow=[("edit(src/**)", "session")])

    def allowed(tool: Tool, path: str) -> bool:
        return rules.allowing(tool, {"path": path}, root=tmp_path, policy=None) is not None

    assert allowed(WRITE, "src/a.py") and allowed(EDIT, "src/deep/b.py")
    assert not allowed(WRITE, "docs/a.md") and not allowed(EDIT, "srcx/a.py")
    assert not allowed(WRITE, "../src/a.py") and not allowed(EDIT, str(tmp_path.parent / "x"))
    assert not allowed(DELETE, "src/a.py") and not allowed(READ, "src/a.py")
    assert rules.allowing(NAMED_EDIT, {"path": "src/a.py"}, root=tmp_path, policy=None) is None


def test_the_project_rule_covers_every_edit_in_the_project_but_not_git_or_rho(
    tmp_path: Path,
) -> None:
    rules = ApprovalRules.read(allow=[("edit(**)", "project")])
    for path in ("a.txt", "src/deep/b.py", str(tmp_path / "c.txt")):
        assert rules.allowing(EDIT, {"path": path}, root=tmp_path, policy=None) is not None
    for path in (".git/config", "sub/.git/hooks/pre-commit", ".rho/config.toml", "../x", "/etc/x"):
        assert rules.allowing(WRITE, {"path": path}, root=tmp_path, policy=None) is None, path


def test_a_bare_class_rule_names_the_class_alone() -> None:
    rules = ApprovalRules.read(allow=[("edit", "--allow")])
    assert rules.allowing(WRITE, {"path": "x"}, root=Path("/p"), policy=None) is not None
    for tool in (NAMED_EDIT, DELETE, RUN, MEMORY):
        assert rules.allowing(tool, {"path": "x"}, root=Path("/p"), policy=None) is None
    pattern = ApprovalRules.read(allow=[("ed*", "--allow")])  # a pattern matches names only
    assert pattern.allowing(EDIT, {"path": "x"}, root=Path("/p"), policy=None) is not None
    assert pattern.allowing(WRITE, {"path": "x"}, root=Path("/p"), policy=None) is None


def test_a_class_deny_rule_refuses_every_edit_it_covers(tmp_path: Path) -> None:
    rules = ApprovalRules.read(
        allow=[("write_file(secrets/**)", "--allow")], deny=[("edit(secrets/**)", "--deny")]
    )
    for tool in (WRITE, EDIT):
        denial = rules.denying(tool, {"path": "secrets/key"}, root=tmp_path)
        assert denial is not None and denial.rule.text == "edit(secrets/**)"
        assert rules.denying(tool, {"path": "src/key"}, root=tmp_path) is None
    assert rules.denying(DELETE, {"path": "secrets/key"}, root=tmp_path) is None


def test_a_remembered_class_rule_covers_both_tools(tmp_path: Path) -> None:
    remembered = [SourcedRule(parse_rule("edit(docs/**)"), "session")]
    rules = ApprovalRules(remembered=lambda: remembered)
    for tool in (WRITE, EDIT):
        allowed = rules.allowing(tool, {"path": "docs/a.md"}, root=tmp_path, policy=None)
        assert allowed is not None and allowed.source == "session"
        assert rules.allowing(tool, {"path": "a.md"}, root=tmp_path, policy=None) is None


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("edit(../x/**)", "leaves the project root"),
        ("edit(/etc/**)", "is not relative to the project root"),
        ("edit(.git/**)", "names .git or .rho"),
        ("edit(!src)", "cannot negate"),
    ],
)
def test_a_class_rule_is_checked_as_a_path_whatever_tools_there_are(
    rule: str, problem: str
) -> None:
    rules = ApprovalRules.read(deny=[(rule, "[approval] deny")])
    with pytest.raises(RuleError, match=rf"^\[approval\] deny: rule .*{problem}"):
        rules.check_against([])
