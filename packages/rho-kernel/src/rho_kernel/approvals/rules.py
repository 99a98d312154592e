"""The text of an approval rule: a tool, and optionally which of its calls.

The syntax is the one users know from other coding agents:

- `memory`: every call of the tool `memory`;
- `mcp__github__*`: every call of every tool whose name matches (`*` is any run of
  characters; a rule must still name something besides `*`);
- `run_command(cargo test:*)`: a command whose program and leading words are exactly these
  (`cargo test`, `cargo test --all`, not `cargo testx`);
- `run_command(npm run build)`: exactly this command;
- `edit_file(src/**)`, `write_file(docs/*.md)`: a path, matched as a `.gitignore` line is,
  relative to the project root;
- `edit(src/**)`, `edit(**)`: the same, for every tool of the file-edit class
  (`write_file`, `edit_file`, and any tool declared to write a path:
  `rho_kernel.approvals.edits`).

What the text in parentheses means depends on the tool: see `Tool.rule_subject` and
`rho_kernel.approvals.subjects`, which also says what a rule never matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A tool name or pattern: the characters of tool names, and `*`.
_TOOL = re.compile(r"[A-Za-z0-9_.\-*]+")
#: The longest rule accepted (a rule is one command or one path, not a script).
MAX_RULE_CHARS = 1000


class RuleError(ValueError):
    """A rule's text cannot be read; the message says why, naming the rule."""


@dataclass(frozen=True, slots=True)
class ApprovalRule:
    """A parsed rule: `tool` (a name, or a pattern with `*`) and `specifier` (the text in
    parentheses, None for a rule naming only the tool). `text` is its canonical form."""

    tool: str
    specifier: str | None = None

    @property
    def text(self) -> str:
        """The rule as it is written and shown."""
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def names(self, tool: str) -> bool:
        """Whether this rule is about the tool `tool` (by name or pattern)."""
        if "*" not in self.tool:
            return tool == self.tool
        return _pattern(self.tool).fullmatch(tool) is not None


def parse_rule(text: str) -> ApprovalRule:
    """The rule `text` spells; raises `RuleError` saying what is wrong with it."""
    if not isinstance(text, str):
        raise RuleError(f"a rule is text, not {type(text).__name__}")
    rule = text.strip()
    shown = rule if len(rule) <= 80 else rule[:77] + "..."
    if not rule:
        raise RuleError("a rule must not be empty")
    if len(rule) > MAX_RULE_CHARS:
        raise RuleError(f"rule {shown!r} is longer than {MAX_RULE_CHARS} characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in rule):
        raise RuleError(f"rule {shown!r} holds a control character (a newline, say)")
    tool, paren, rest = rule.partition("(")
    tool = tool.strip()
    if not _TOOL.fullmatch(tool):
        raise RuleError(
            f"rule {shown!r}: {tool!r} is not a tool name (letters, digits, '_', '-', '.', "
            "and '*' for any characters)"
        )
    if not tool.strip("*"):
        raise RuleError(f'rule {shown!r} names no tool (use the approval mode "auto" instead)')
    if not paren:
        return ApprovalRule(tool)
    if not rest.endswith(")"):
        raise RuleError(f"rule {shown!r} opens '(' but does not end with ')'")
    specifier = rest[:-1].strip()
    if not specifier:
        raise RuleError(f"rule {shown!r}: the parentheses are empty (write {tool!r} alone)")
    return ApprovalRule(tool, specifier)


def _pattern(tool: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in tool.split("*")))


__all__ = ["MAX_RULE_CHARS", "ApprovalRule", "RuleError", "parse_rule"]
