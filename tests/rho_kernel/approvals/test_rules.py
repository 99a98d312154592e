"""The text of approval rules: what reads as a rule, and what is refused with a reason."""

from __future__ import annotations

import pytest

from rho_kernel.approvals.rules import MAX_RULE_CHARS, ApprovalRule, RuleError, parse_rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("memory", ApprovalRule("memory")),
        ("  memory  ", ApprovalRule("memory")),
        ("mcp__github__*", ApprovalRule("mcp__github__*")),
        ("run_command(cargo test:*)", ApprovalRule("run_command", "cargo test:*")),
        ("run_command( npm run build )", ApprovalRule("run_command", "npm run build")),
        ("run_command(echo (x))", ApprovalRule("run_command", "echo (x)")),
        ("edit_file(src/**)", ApprovalRule("edit_file", "src/**")),
    ],
)
def test_rules_read_as_written(text: str, rule: ApprovalRule) -> None:
    assert parse_rule(text) == rule
    assert parse_rule(rule.text) == rule  # the canonical text reads back the same


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "must not be empty"),
        ("*", "names no tool"),
        ("**(x)", "names no tool"),
        ("run command", "is not a tool name"),
        ("run_command(cargo", "does not end with"),
        ("run_command()", "parentheses are empty"),
        ("run_command(ls\nrm -rf x)", "control character"),
        ("x" * (MAX_RULE_CHARS + 1), "longer than"),
    ],
)
def test_what_is_not_a_rule_is_refused_with_a_reason(text: str, problem: str) -> None:
    with pytest.raises(RuleError, match=problem):
        parse_rule(text)


def test_a_rule_is_text() -> None:
    with pytest.raises(RuleError, match="is text"):
        parse_rule(["memory"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rule", "tool", "names"),
    [
        ("memory", "memory", True),
        ("memory", "memory_x", False),
        ("mcp__github__*", "mcp__github__create_issue", True),
        ("mcp__github__*", "mcp__gitlab__x", False),
        ("mcp__*__read", "mcp__fs__read", True),
        ("read.file", "readXfile", False),  # a dot is a dot, not any character
    ],
)
def test_a_rule_names_tools_by_name_or_pattern(rule: str, tool: str, names: bool) -> None:
    assert parse_rule(rule).names(tool) is names
