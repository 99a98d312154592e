"""The rules an approval request offers to remember: the scopes a person means, from the
narrowest to the widest that stays inside the project.

For a command that is one plain command: exactly it, and — when the whole command is known
to run no other program (`rho_kernel.approvals.coverage`) — its program with its first
word when that is not an option (`cargo test:*` for `cargo test --all`; only the exact
command for `git grep -O… foo` or `sed '1e …' f`).

For a file write (a tool of the file-edit class, `rho_kernel.approvals.edits`), rules of the
class, built from the path the tool will really open (resolved through links, as rules
match it): this file (`edit(src/app/main.py)`), this folder (`edit(src/app/**)`, only for a
folder below the project root), and every edit in the project (`edit(**)`, which matches no
path outside it, nor in `.git` or `.rho`). For another tool matched on a path: the file
and its folder, naming the tool. For a tool matched on neither: the tool.

Each comes with a label a person reads (`edits in src/app/`; control and bidi characters
escaped, so a file name cannot disguise it), and is offered for the
`session` and for the `project`. A call no rule could cover (a list of commands, a path
outside the project or in `.git`) offers none; every rule offered covers its call.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.approvals.rules import RuleError, parse_rule
from rho_kernel.framing import escape_controls

if TYPE_CHECKING:
    from rho_kernel.approvals.subjects import CallSubject
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
    """A rule an approval may remember, and where it would be kept. `label` says what the
    rule covers in words (`edits in src/`, `commands starting with cargo test`); two
    suggestions are the same when their scope and rule are."""

    scope: RuleScope
    rule: str
    label: str = field(default="", compare=False)

    @property
    def title(self) -> str:
        """The choice in words, scope included: `Allow edits in src/ for this session`,
        `Always allow edits in src/` (kept for the project)."""
        covered = self.label or self.rule
        if self.scope == "session":
            return f"Allow {covered} for this session"
        return f"Always allow {covered}"


def suggested_rules(
    tool: Tool, arguments: dict[str, Any], root: Path | SandboxRoot
) -> tuple[SuggestedRule, ...]:
    """The rules offered for a call of `tool` with `arguments` in the project `root` (its
    sandbox, or its directory) (see the module)."""
    from rho_kernel.approvals.subjects import CallSubject

    subject = CallSubject(tool.rule_subject, arguments, root, "bash")
    offered = [
        (text, label)
        for text, label in _rule_texts(tool, arguments, root)
        if _covers(text, tool, subject)
    ]
    return tuple(
        SuggestedRule(scope, text, escape_controls(label))
        for scope in SCOPES
        for text, label in offered
    )


def _rule_texts(
    tool: Tool, arguments: dict[str, Any], root: Path | SandboxRoot
) -> list[tuple[str, str]]:
    from rho_kernel.approvals.subjects import SUBJECT_ARGUMENT

    subject = tool.rule_subject
    if subject is None:
        return [(tool.name, f"{tool.name} calls")]
    value = arguments.get(SUBJECT_ARGUMENT[subject])
    if not isinstance(value, str):
        return []
    if subject == "command":
        return _command_texts(tool.name, value)
    return _path_texts(tool, value, root)


def _command_texts(name: str, line: str) -> list[tuple[str, str]]:
    """This command exactly, and its prefix when the command is known to be safe."""
    from rho_kernel.approvals.subjects import plain_command

    words = plain_command(line)
    if words is None:
        return []
    command = shlex.join(words)
    texts = [(f"{name}({command})", f"the command {command}")]
    if len(words) > 1 and not words[1].startswith("-") and _coverable(words):
        prefix = shlex.join(words[:2])
        texts.append((f"{name}({prefix}:*)", f"commands starting with {prefix}"))
    return texts


def _path_texts(tool: Tool, path: str, root: Path | SandboxRoot) -> list[tuple[str, str]]:
    """This file, this folder (below the root), and, for a file edit, the whole project."""
    from rho_kernel.approvals.edits import EDIT_CLASS, edits_files
    from rho_kernel.approvals.subjects import resolved_relative

    relative = resolved_relative(path, root)
    if relative is None:
        return []
    edits = edits_files(tool)
    name = EDIT_CLASS if edits else tool.name
    on, within = ("edits to", "edits in") if edits else (f"{name} on", f"{name} in")
    texts = []
    if not _PATTERN_SYNTAX.search(relative):
        texts.append((f"{name}({relative})", f"{on} {relative}"))
    parent = posixpath.dirname(relative)
    if parent and not _PATTERN_SYNTAX.search(parent):
        texts.append((f"{name}({parent}/**)", f"{within} {parent}/"))
    if edits:
        texts.append((f"{EDIT_CLASS}(**)", "edits in this project"))
    return texts


def _covers(text: str, tool: Tool, subject: CallSubject) -> bool:
    """Whether the rule `text` reads back as a rule that covers the call `subject` is of (a
    rule that would not — too long, a word with a newline — is not offered)."""
    from rho_kernel.approvals.edits import rule_names

    try:
        rule = parse_rule(text)
    except RuleError:
        return False
    if not rule_names(rule, tool):
        return False
    return rule.specifier is None or subject.allowed_by(rule.specifier)


def _coverable(words: tuple[str, ...]) -> bool:
    """Whether a prefix rule could cover the command `words` (see the module)."""
    from rho_kernel.approvals.coverage import known_safe

    return known_safe(words)


__all__ = ["SCOPES", "RuleScope", "SuggestedRule", "suggested_rules"]
