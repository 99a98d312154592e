"""The rules an approval request offers to remember: the narrowest that are still useful.

For a command that is one plain command: exactly it, and — when the whole command is known
to run no other program (`rho_kernel.approvals.coverage`) — its program with its first
word when that is not an option (`cargo test:*` for `cargo test --all`; only the exact
command for `git grep -O… foo` or `sed '1e …' f`). For a path in the project: the path
the tool will really open (resolved through links, as rules match it), exactly, and
everything in its directory (`src/app/**`; `Makefile` alone for `src/up/Makefile` with
`src/up -> ..`). For a tool matched on neither: the tool. Each is offered for the `session`
and for the `project`. A call no rule could cover (a list of commands, a path outside the
project) offers none.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.approvals.rules import MAX_RULE_CHARS

if TYPE_CHECKING:
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.tools.base import Tool

RuleScope = Literal["session", "project"]
"""Where a remembered rule is kept: in the session (a resumed session keeps it), or for the
project, in a file of the user's under `~/.rho` (never in the repository)."""

SCOPES: tuple[RuleScope, ...] = ("session", "project")

#: Characters a `.gitignore` line reads as pattern syntax: paths holding them are not offered.
_PATTERN_SYNTAX = re.compile(r"[*?\[\]\\!#]|^\s|\s$")


@dataclass(frozen=True, slots=True)
class SuggestedRule:
    """A rule an approval may remember, and where it would be kept."""

    scope: RuleScope
    rule: str


def suggested_rules(
    tool: Tool, arguments: dict[str, Any], root: Path | SandboxRoot
) -> tuple[SuggestedRule, ...]:
    """The rules offered for a call of `tool` with `arguments` in the project `root` (its
    sandbox, or its directory) (see the module)."""
    texts = _rule_texts(tool, arguments, root)
    fitting = [text for text in texts if len(text) <= MAX_RULE_CHARS]
    return tuple(SuggestedRule(scope, text) for scope in SCOPES for text in fitting)


def _rule_texts(tool: Tool, arguments: dict[str, Any], root: Path | SandboxRoot) -> list[str]:
    from rho_kernel.approvals.subjects import SUBJECT_ARGUMENT, plain_command, resolved_relative

    subject = tool.rule_subject
    if subject is None:
        return [tool.name]
    value = arguments.get(SUBJECT_ARGUMENT[subject])
    if not isinstance(value, str):
        return []
    if subject == "command":
        words = plain_command(value)
        if words is None:
            return []
        texts = [f"{tool.name}({shlex.join(words)})"]
        if len(words) > 1 and not words[1].startswith("-") and _coverable(words):
            texts.append(f"{tool.name}({shlex.join(words[:2])}:*)")
        return texts
    relative = resolved_relative(value, root)
    if relative is None or _PATTERN_SYNTAX.search(relative):
        return []
    texts = [f"{tool.name}({relative})"]
    parent = posixpath.dirname(relative)
    if parent:
        texts.append(f"{tool.name}({parent}/**)")
    return texts


def _coverable(words: tuple[str, ...]) -> bool:
    """Whether a prefix rule could cover the command `words` (see the module)."""
    from rho_kernel.approvals.coverage import known_safe

    return known_safe(words)


__all__ = ["SCOPES", "RuleScope", "SuggestedRule", "suggested_rules"]
