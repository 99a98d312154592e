"""The approval rules in force: deny rules, which refuse a call before anything else is
asked, and allow rules, which run a call the approval policy would ask about.

Each rule keeps where it came from (`--allow`, `[approval] deny`, …) to be named when it
decides a call. A deny rule beats every allow rule, wherever either came from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel.approvals.edits import EDIT_CLASS, edits_files, rule_names
from rho_kernel.approvals.rules import ApprovalRule, RuleError, parse_rule

if TYPE_CHECKING:
    from rho_kernel.approvals.index import RuleIndex
    from rho_kernel.approvals.subjects import SubjectKind
    from rho_kernel.security.commands import CommandPolicy
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.tools.base import Tool


@dataclass(frozen=True, slots=True)
class SourcedRule:
    """A rule and where it was given (`--allow`, `[approval] allow`, …)."""

    rule: ApprovalRule
    source: str


class ApprovalRules:
    """The allow and deny rules of a run, matched against tool calls.

    `shell` is how command lines are parsed: rules never match a PowerShell line (its
    checks are a tokenizer, too coarse to say a line is one plain command). `remembered`
    gives the allow rules remembered from approvals (the session's and the project's),
    asked again at each call, after the given ones.
    """

    def __init__(
        self,
        allow: Iterable[SourcedRule] = (),
        deny: Iterable[SourcedRule] = (),
        *,
        shell: str = "bash",
        remembered: Callable[[], Sequence[SourcedRule]] | None = None,
    ) -> None:
        self.allow = tuple(allow)
        self.deny = tuple(deny)
        self.shell = shell
        self.remembered = remembered or (lambda: ())
        self._indexes: dict[tuple[bool, str, str | None, bool], RuleIndex] = {}

    @classmethod
    def read(
        cls,
        allow: Iterable[tuple[str, str]] = (),
        deny: Iterable[tuple[str, str]] = (),
        *,
        shell: str = "bash",
    ) -> ApprovalRules:
        """The rules of `(text, source)` pairs; raises `RuleError` naming the first rule
        that cannot be read and where it was given."""
        return cls(_read(allow), _read(deny), shell=shell)

    def every_allow(self) -> tuple[SourcedRule, ...]:
        """The given allow rules, then the remembered ones."""
        return (*self.allow, *self.remembered())

    def check_against(self, tools: Iterable[Tool]) -> None:
        """Raise `RuleError` for a rule whose parentheses cannot mean anything for the tool
        it names (a command rule that is not one plain command, a path outside the
        project, parentheses on a tool that has no subject)."""
        for sourced in (*self.allow, *self.deny):
            rule = sourced.rule
            if rule.specifier is None or "*" in rule.tool:
                continue
            where = f"{sourced.source}: rule {rule.text!r}"
            if rule.tool == EDIT_CLASS:
                _check_specifier(where, "path", rule.specifier)
                continue
            tool = next((tool for tool in tools if tool.name == rule.tool), None)
            if tool is None:
                continue  # a tool of a pack not installed, or one that comes later
            if tool.rule_subject is None:
                raise RuleError(
                    f"{where}: {tool.name} calls are not matched on a command or a path; "
                    f"write {tool.name!r} alone"
                )
            _check_specifier(where, tool.rule_subject, rule.specifier)

    def denying(
        self, tool: Tool, arguments: dict[str, Any], *, root: Path | SandboxRoot
    ) -> SourcedRule | None:
        """The first deny rule covering this call (read to refuse whatever might be what it
        names, in either shell), or None. `root` is the project: its sandbox, which
        resolves paths as the tools do (a directory is opened as one)."""
        from rho_kernel.approvals.subjects import CallSubject

        subject = CallSubject(tool.rule_subject, arguments, root, self.shell)
        index = self._index(self.deny, tool, deny=True)
        for sourced in index.candidates(subject.deny_keys()):
            specifier = sourced.rule.specifier
            if specifier is None or subject.denied_by(specifier):
                return sourced
        return None

    def allowing(
        self,
        tool: Tool,
        arguments: dict[str, Any],
        *,
        root: Path | SandboxRoot,
        policy: CommandPolicy | None,
        remembered: Sequence[SourcedRule] | None = None,
    ) -> SourcedRule | None:
        """The first allow rule covering this call, or None (deny rules are not consulted:
        ask `denying` first). A command is parsed once for all the rules, and the command
        policy asked only about a line a rule covers. `remembered` stands for the remembered
        rules when the caller has read them (where the session may be read safely)."""
        from rho_kernel.approvals.subjects import CallSubject

        kind = tool.rule_subject
        if kind == "command" and self.shell != "bash":
            kind = None  # only a bare rule naming the tool can cover a PowerShell line
        subject = CallSubject(kind, arguments, root, self.shell)
        given = self._index(self.allow, tool, deny=False).candidates(subject.allow_keys())
        extra = self.remembered() if remembered is None else remembered
        naming = [sourced for sourced in extra if rule_names(sourced.rule, tool)]
        for sourced in (*given, *naming):
            specifier = sourced.rule.specifier
            if specifier is None:
                return sourced
            if subject.allowed_by(specifier):
                if subject.kind == "command" and policy is not None:
                    return sourced if policy.check(subject.value) is None else None
                return sourced
        return None

    def _index(self, rules: tuple[SourcedRule, ...], tool: Tool, *, deny: bool) -> RuleIndex:
        """The rules of `rules` about `tool`, grouped (worked out once per tool)."""
        from rho_kernel.approvals.index import RuleIndex

        key = (deny, tool.name, tool.rule_subject, edits_files(tool))
        index = self._indexes.get(key)
        if index is None:
            naming = [sourced for sourced in rules if rule_names(sourced.rule, tool)]
            index = RuleIndex(naming, tool.rule_subject, deny=deny)
            self._indexes[key] = index
        return index


def _check_specifier(where: str, kind: SubjectKind, specifier: str) -> None:
    """Raise `RuleError` (saying `where`) when `specifier` means nothing for a `kind` tool."""
    from rho_kernel.approvals.subjects import read_specifier

    try:
        read_specifier(kind, specifier)
    except RuleError as exc:
        raise RuleError(f"{where}: {exc}") from None


def _read(pairs: Iterable[tuple[str, str]]) -> list[SourcedRule]:
    rules = []
    for text, source in pairs:
        try:
            rules.append(SourcedRule(parse_rule(text), source))
        except RuleError as exc:
            raise RuleError(f"{source}: {exc}") from None
    return rules


__all__ = ["ApprovalRules", "SourcedRule"]
