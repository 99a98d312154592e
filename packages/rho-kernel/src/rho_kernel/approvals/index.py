"""The rules about one tool, grouped so that a call is compared only with those that may
cover it: command rules by program, path rules by the first directory of an anchored
pattern. Rules keep their order: the first that covers a call is the one named."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rho_kernel.approvals.rules import RuleError

if TYPE_CHECKING:
    from rho_kernel.approvals.ruleset import SourcedRule
    from rho_kernel.approvals.subjects import SubjectKind

_GLOB = re.compile(r"[*?\[\]\\!]")


class RuleIndex:
    """`rules` (all about one tool of subject `kind`) grouped by what a call must have for
    them to cover it; `deny` groups command rules by program name (as deny rules compare)."""

    def __init__(
        self, rules: Sequence[SourcedRule], kind: SubjectKind | None, *, deny: bool
    ) -> None:
        self.rules = tuple(rules)
        self._always: list[int] = []  # bare rules, and rules no key describes
        self._keyed: dict[str, list[int]] = {}
        for position, sourced in enumerate(self.rules):
            key = _key(kind, sourced.rule.specifier, deny)
            if key is None:
                self._always.append(position)
            else:
                self._keyed.setdefault(key, []).append(position)

    def candidates(self, keys: Iterable[str] | None) -> list[SourcedRule]:
        """The rules that may cover a call with these keys (None: any rule may), in order."""
        if keys is None:
            return list(self.rules)
        positions = set(self._always)
        for key in keys:
            positions.update(self._keyed.get(key, ()))
        return [self.rules[position] for position in sorted(positions)]


def _key(kind: SubjectKind | None, specifier: str | None, deny: bool) -> str | None:
    if specifier is None or kind is None:
        return None
    if kind == "path":
        return anchored_directory(specifier)
    from rho_kernel.approvals.subjects import CommandSpecifier, read_specifier
    from rho_kernel.security.commands import command_name

    try:
        parsed = read_specifier(kind, specifier)
    except RuleError:
        return None
    if not isinstance(parsed, CommandSpecifier):
        return None
    program = parsed.words[0]
    return command_name(program) if deny else program


def anchored_directory(pattern: str) -> str | None:
    """The first directory of a `.gitignore` pattern that only matches under it (`src` for
    `src/**`), or None (a pattern without a slash matches at any depth)."""
    body = pattern.removeprefix("/")
    first, slash, _ = body.partition("/")
    if not slash or not first or _GLOB.search(first):
        return None
    return first


__all__ = ["RuleIndex", "anchored_directory"]
