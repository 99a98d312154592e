"""What the text in a rule's parentheses is matched against: a shell command or a path.

A tool says which with `Tool.rule_subject`: `"command"` (its `command` argument is a shell
line: `run_command`) or `"path"` (its `path` argument is a file in the project: `edit_file`,
`write_file`). A rule with parentheses never matches a tool that says neither.

**Commands.** A rule is one plain command: its words, or its leading words followed by
`:*`. It matches a call whose whole line is one plain command with exactly those words (or
starting with them): the program compared as written (`cargo` is not `./cargo`), each word
after quote removal. A line is plain when it is one simple command — no pipeline, list
(`;`, `&&`, `||`, a newline) or command substitution (`$(…)`, backticks, `<(…)`) — whose
every word is known before it runs (no variable, glob or arithmetic), with no variable
assignment and no redirection except to `/dev/null`, running no other command (not a
wrapper such as `sudo`, `env`, `timeout`, `xargs`, a shell's `-c`, `eval`, or git's
aliases: the command policy's list), and which the command policy allows (nothing on the
denylist). So `run_command(cargo test:*)` never matches `cargo test; rm -rf x`,
`cargo testx`, `cargo test | tee log` or `sudo cargo test`. PowerShell lines never match.

**Paths.** A rule is a pattern read as one line of a `.gitignore` (`src/**`, `docs/*.md`,
`*.lock`), relative to the project root. It matches a call whose path, made relative to the
root without following links, stays inside the root and does not pass through `.git` or
`.rho`. (The tool still checks the real path when it runs: a link out of the project is
refused as it always is.)
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.approvals.rules import RuleError
from rho_kernel.security.commands import command_name
from rho_kernel.security.protected import protected_name

if TYPE_CHECKING:
    import pathspec

    from rho_kernel.security.commands import CommandPolicy

SubjectKind = Literal["command", "path"]
"""What a tool's calls are matched on (see the module)."""

#: The argument each kind of subject reads.
SUBJECT_ARGUMENT: dict[str, str] = {"command": "command", "path": "path"}


@dataclass(frozen=True, slots=True)
class CommandSpecifier:
    """A command rule: its words, and whether a call may add more (`:*`)."""

    words: tuple[str, ...]
    prefix: bool

    def matches(self, line: str, policy: CommandPolicy | None) -> bool:
        """Whether the shell line `line` is a plain command this rule covers."""
        words = plain_command(line)
        if words is None:
            return False
        if (words[: len(self.words)] if self.prefix else words) != self.words:
            return False
        return policy is None or policy.check(line) is None


@dataclass(frozen=True, slots=True)
class PathSpecifier:
    """A path rule: its `.gitignore`-style pattern."""

    pattern: str
    compiled: pathspec.GitIgnoreSpec

    def matches(self, path: str, root: Path) -> bool:
        """Whether `path` (as a call gives it) lies inside `root` where the pattern says."""
        relative = project_relative(path, root)
        return relative is not None and self.compiled.match_file(relative)


Specifier = CommandSpecifier | PathSpecifier


@lru_cache(maxsize=4096)
def read_specifier(kind: SubjectKind, text: str) -> Specifier:
    """The specifier `text` of a rule on a `kind` tool; raises `RuleError` when it is not
    one (remembered: the same rules are read for every call)."""
    if kind == "command":
        return _command_specifier(text)
    return _path_specifier(text)


def specifier_matches(
    kind: SubjectKind | None,
    specifier: str,
    arguments: dict[str, Any],
    *,
    root: Path,
    policy: CommandPolicy | None = None,
) -> bool:
    """Whether a rule's `specifier` covers a call with `arguments` of a `kind` tool (never,
    for a tool without a subject, or a specifier that cannot be read)."""
    if kind is None:
        return False
    value = arguments.get(SUBJECT_ARGUMENT[kind])
    if not isinstance(value, str):
        return False
    try:
        parsed = read_specifier(kind, specifier)
    except RuleError:
        return False
    if isinstance(parsed, CommandSpecifier):
        return parsed.matches(value, policy)
    return parsed.matches(value, root)


def plain_command(line: str) -> tuple[str, ...] | None:
    """The words of `line` when it is one plain command (see the module), else None."""
    from rho_kernel.security.bashparse import parse_bash  # tree-sitter: on first use
    from rho_kernel.security.wrappers import inner_commands

    parsed = parse_bash(line)
    if parsed.error is not None or len(parsed.commands) != 1:
        return None
    if parsed.assignments or parsed.subscripts:
        return None
    if any(target.value != "/dev/null" for target in parsed.redirects):
        return None
    words = parsed.commands[0].words
    if not words or not all(word.static for word in words):
        return None
    values = tuple(word.value or "" for word in words)
    if not values[0] or inner_commands(command_name(values[0]), words[1:], "bash"):
        return None
    return values


def project_relative(path: str, root: Path) -> str | None:
    """`path` relative to `root` (with `/`), made without following links; None when it
    leaves the root, names the root itself, or passes through `.git` or `.rho`."""
    if not path or "\0" in path or path.startswith("~"):
        return None
    base = os.fspath(root)
    joined = os.path.normpath(os.path.join(base, path))
    relative = os.path.relpath(joined, base) if os.path.isabs(joined) else None
    if relative is None or relative == os.curdir:
        return None
    parts = Path(relative).parts
    if parts[0] == os.pardir or os.path.isabs(relative):
        return None
    if any(protected_name(part) for part in parts):
        return None
    return posixpath.join(*parts)


def _command_specifier(text: str) -> CommandSpecifier:
    prefix = text.endswith(":*")
    body = text[:-2].rstrip() if prefix else text
    words = plain_command(body) if body else None
    if words is None:
        raise RuleError(
            f"{text!r} is not one plain command: a rule names a program and its leading "
            "words (e.g. 'cargo test:*'), without pipes, lists, $(…), variables, globs, "
            "redirections or wrappers such as sudo"
        )
    return CommandSpecifier(words, prefix)


def _path_specifier(text: str) -> PathSpecifier:
    import pathspec  # on first use

    problem = _path_problem(text)
    if problem is not None:
        raise RuleError(f"{text!r} {problem}")
    return PathSpecifier(text, pathspec.GitIgnoreSpec.from_lines([text]))


def _path_problem(text: str) -> str | None:
    if text.startswith(("!", "#")):
        return "is not a path pattern (a rule cannot negate or comment)"
    if text.startswith(("/", "~", "\\")) or (len(text) > 1 and text[1] == ":"):
        return "is not relative to the project root"
    parts = text.replace("\\", "/").split("/")
    if os.pardir in parts:
        return "leaves the project root ('..')"
    if any(protected_name(part) for part in parts if "*" not in part):
        return "names .git or .rho, which rho never writes without asking"
    return None


__all__ = [
    "SUBJECT_ARGUMENT",
    "CommandSpecifier",
    "PathSpecifier",
    "Specifier",
    "SubjectKind",
    "plain_command",
    "project_relative",
    "read_specifier",
    "specifier_matches",
]
