"""What the text in a rule's parentheses is matched against: a shell command or a path.

A tool says which with `Tool.rule_subject`: `"command"` (its `command` argument is a shell
line: `run_command`) or `"path"` (its `path` argument is a file in the project: `edit_file`,
`write_file`). A rule with parentheses never matches a tool that says neither. A rule
naming `edit` is matched on the path of every tool of the file-edit class
(`rho_kernel.approvals.edits`).

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
A prefix rule covers more words than its own only when the whole command is known to run
no other program: every option is on its program's list of safe options
(`rho_kernel.approvals.coverage`); otherwise, and for a program whose safe options are not
listed, it covers exactly its own words. So `run_command(git grep:*)` covers
`git grep -n foo` but not `git grep -O'sh -c …' foo`.

A deny rule is read the other way round, to refuse whatever might be what it names: it
covers a line when any command the line runs — each part of a list or pipeline, each
substitution, whatever a wrapper or a shell's `-c` runs — begins with its words (exactly
its words, without `:*`), the program compared by name (`/usr/bin/git` is `git`), and a
word only known when the line runs counts as matching. A line that cannot be read is
covered.

**Paths.** A rule is a pattern read as one line of a `.gitignore` (`src/**`, `docs/*.md`,
`*.lock`), relative to the project root. It matches the path the tool will really open:
the call's path resolved through links inside the project as `SandboxRoot` resolves it
(`src/up/Makefile` with `src/up -> ..` is `Makefile`). A path that leaves the project, that
passes through `.git` or `.rho`, or whose `..` crosses a link (where the kernel's `..` and
the text's differ) matches no allow rule. A deny rule covers a path when it covers either
the path as written or the file it resolves to (through any `..`).
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.approvals.rules import RuleError
from rho_kernel.security.protected import protected_name

if TYPE_CHECKING:
    import pathspec

    from rho_kernel.security.commands import CommandPolicy
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.security.shellwords import ParsedLine, Word

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
        return self.covers(plain_command(line)) and (policy is None or policy.check(line) is None)

    def covers(self, words: tuple[str, ...] | None) -> bool:
        """Whether a plain command of `words` (None: a line that is not one) is this rule's
        (the command policy not asked)."""
        if words is None:
            return False
        if not self.prefix or len(words) == len(self.words):
            return words == self.words
        if words[: len(self.words)] != self.words:
            return False
        from rho_kernel.approvals.coverage import known_safe  # the tables, on first use

        return known_safe(words)

    def denies(self, line: str, shell: str = "bash") -> bool:
        """Whether a deny rule of these words covers `line` (see the module)."""
        return self.might_be_any(every_command(line, shell))

    def might_be_any(self, commands: list[tuple[str | None, ...]] | None) -> bool:
        """Whether any of `commands` (None: a line that cannot be read) may be this rule's."""
        return commands is None or any(self._might_be(words) for words in commands)

    def _might_be(self, words: tuple[str | None, ...]) -> bool:
        from rho_kernel.security.commands import command_name

        if words[0] is None:
            return True  # a program only known when the line runs may be this one
        if command_name(words[0]) != command_name(self.words[0]):
            return False
        if len(words) < len(self.words) or (not self.prefix and len(words) != len(self.words)):
            return False
        given = zip(words[1:], self.words[1:], strict=False)  # the call may have more words
        return all(word is None or word == want for word, want in given)


@dataclass(frozen=True, slots=True)
class PathSpecifier:
    """A path rule: its `.gitignore`-style pattern."""

    pattern: str
    compiled: pathspec.GitIgnoreSpec

    def matches(self, path: str, root: Path | SandboxRoot) -> bool:
        """Whether `path` (as a call gives it), resolved as the tool will open it, lies
        inside `root` where the pattern says."""
        return self.covers(resolved_relative(path, root))

    def covers(self, relative: str | None) -> bool:
        """Whether the project-relative path `relative` (None: none) is where the pattern says."""
        return relative is not None and bool(self.compiled.match_file(relative))


class CallSubject:
    """What rules are matched against in one call, worked out once for all of them: the
    call's command line (as one plain command, and as every command it runs) or its path
    relative to the project."""

    def __init__(
        self,
        kind: SubjectKind | None,
        arguments: dict[str, Any],
        root: Path | SandboxRoot,
        shell: str,
    ) -> None:
        value = arguments.get(SUBJECT_ARGUMENT[kind]) if kind is not None else None
        self.kind = kind if isinstance(value, str) else None
        self.value = value if isinstance(value, str) else ""
        self._root = root
        self._shell = shell
        self._plain: tuple[tuple[str, ...] | None] | None = None
        self._every: tuple[list[tuple[str | None, ...]] | None] | None = None
        self._relative: tuple[str | None] | None = None
        self._opened: tuple[str | None] | None = None
        self._lexical: tuple[str | None] | None = None

    def allow_keys(self) -> list[str] | None:
        """What allow rules are grouped by that this call has (see `RuleIndex`)."""
        if self.kind == "command":
            words = self._plain_words()
            return [words[0]] if words else []
        if self.kind == "path":
            return self._directory_keys()
        return []

    def deny_keys(self) -> list[str] | None:
        """What deny rules are grouped by that this call has; None when any may cover it
        (a line that cannot be read, or a program only known when it runs)."""
        if self.kind == "command":
            from rho_kernel.security.commands import command_name

            commands = self._every_commands()
            if commands is None or any(words[0] is None for words in commands):
                return None
            return [command_name(words[0] or "") for words in commands]
        if self.kind == "path":
            return self._directory_keys()
        return []

    def _directory_keys(self) -> list[str]:
        paths = {self._relative_path(), self._opened_path(), self._lexical_path()}
        return sorted({path.split("/", 1)[0] for path in paths if path})

    def _every_commands(self) -> list[tuple[str | None, ...]] | None:
        if self._every is None:
            self._every = (every_command(self.value, self._shell),)
        return self._every[0]

    def allowed_by(self, specifier: str) -> bool:
        """Whether an allow rule's `specifier` covers this call (the policy not asked)."""
        parsed = self._specifier(specifier)
        if isinstance(parsed, CommandSpecifier):
            return parsed.covers(self._plain_words())
        if isinstance(parsed, PathSpecifier):
            return parsed.covers(self._relative_path())
        return False

    def denied_by(self, specifier: str) -> bool:
        """Whether a deny rule's `specifier` covers this call."""
        parsed = self._specifier(specifier)
        if isinstance(parsed, CommandSpecifier):
            return parsed.might_be_any(self._every_commands())
        if isinstance(parsed, PathSpecifier):
            return parsed.covers(self._opened_path()) or parsed.covers(self._lexical_path())
        return False

    def _specifier(self, specifier: str) -> Specifier | None:
        if self.kind is None:
            return None
        try:
            return read_specifier(self.kind, specifier)
        except RuleError:
            return None

    def _plain_words(self) -> tuple[str, ...] | None:
        if self._plain is None:
            self._plain = (plain_command(self.value),)
        return self._plain[0]

    def _relative_path(self) -> str | None:
        """The path the tool will open, relative to the root (None: none in the project)."""
        if self._relative is None:
            self._relative = (resolved_relative(self.value, self._root),)
        return self._relative[0]

    def _opened_path(self) -> str | None:
        """The file the tool will open, even through a `..` that crosses a link."""
        if self._opened is None:
            self._opened = (opened_relative(self.value, self._root),)
        return self._opened[0]

    def _lexical_path(self) -> str | None:
        """The path as written, made relative to the root without following links."""
        if self._lexical is None:
            self._lexical = (project_relative(self.value, _root_path(self._root)),)
        return self._lexical[0]


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
    root: Path | SandboxRoot,
    policy: CommandPolicy | None = None,
) -> bool:
    """Whether an allow rule's `specifier` covers a call with `arguments` of a `kind` tool
    (never, for a tool without a subject, or a specifier that cannot be read)."""
    subject = CallSubject(kind, arguments, root, "bash")
    if not subject.allowed_by(specifier):
        return False
    return subject.kind != "command" or policy is None or policy.check(subject.value) is None


def specifier_denies(
    kind: SubjectKind | None,
    specifier: str,
    arguments: dict[str, Any],
    *,
    root: Path | SandboxRoot,
    shell: str = "bash",
) -> bool:
    """Whether a deny rule's `specifier` covers a call with `arguments` of a `kind` tool."""
    return CallSubject(kind, arguments, root, shell).denied_by(specifier)


#: How deep shells and wrappers are followed when looking for what a line runs.
_MAX_DEPTH = 8


def every_command(
    line: str, shell: str = "bash", depth: int = 0
) -> list[tuple[str | None, ...]] | None:
    """The words of every command `line` runs (a word known only at run time as None, and a
    command that cannot be known at all as `(None,)`), or None when it cannot be read."""
    from rho_kernel.security.pwshparse import parse_pwsh

    parsed = parse_pwsh(line) if shell == "pwsh" else _parsed_bash(line)
    if parsed.error is not None or depth > _MAX_DEPTH:
        return None
    found: list[tuple[str | None, ...]] = []
    for simple in parsed.commands:
        found.extend(_with_what_it_runs(simple.words, shell, depth))
    return found


def _with_what_it_runs(words: list[Word], shell: str, depth: int) -> list[tuple[str | None, ...]]:
    from rho_kernel.security.commands import command_name
    from rho_kernel.security.inner import InnerArgv, InnerLine
    from rho_kernel.security.wrappers import inner_commands

    values = tuple(word.value if word.static else None for word in words)
    found = [values]
    if values[0] is None:
        return found
    for inner in inner_commands(command_name(values[0]), words[1:], shell):
        if isinstance(inner, InnerArgv) and inner.words and depth < _MAX_DEPTH:
            found.extend(_with_what_it_runs(inner.words, shell, depth + 1))
        elif isinstance(inner, InnerLine) and inner.text is not None:
            inner_shell = "pwsh" if inner.shell == "pwsh" else "bash"
            commands = every_command(inner.text, inner_shell, depth + 1)
            found.extend(commands if commands is not None else [(None,)])
        else:
            found.append((None,))  # code out of sight: it may be anything
    return found


@lru_cache(maxsize=64)
def _parsed_bash(line: str) -> ParsedLine:
    """`line` parsed as bash (tree-sitter, imported on first use); kept for the few lines
    of the last calls, which the allow and deny rules both read (treat it as read-only)."""
    from rho_kernel.security.bashparse import parse_bash

    return parse_bash(line)


def plain_command(line: str) -> tuple[str, ...] | None:
    """The words of `line` when it is one plain command (see the module), else None."""
    from rho_kernel.security.commands import command_name
    from rho_kernel.security.wrappers import inner_commands

    parsed = _parsed_bash(line)
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


def resolved_relative(path: str, root: Path | SandboxRoot) -> str | None:
    """The file `path` names, as allow rules match it: `opened_relative`, and None also
    when a `..` in it crosses a link (the kernel's `..` goes up from where the link leads,
    the text's from the link: `src/link/../x` is not `src/x`)."""
    opened = opened_relative(path, root)
    if opened is None or os.pardir not in path.replace("\\", "/").split("/"):
        return opened
    return opened if opened == project_relative(path, _root_path(root)) else None


def opened_relative(path: str, root: Path | SandboxRoot) -> str | None:
    """The file `path` names as a tool writing it would open it — resolved through links
    inside the project the way `SandboxRoot.validate_for_write` resolves it — relative to
    the root (with `/`). None when it leaves the project (also through a link), names the
    root, or passes through `.git` or `.rho` (or a git directory)."""
    if not path or "\0" in path or path.startswith("~"):
        return None
    sandbox = _sandbox(root)
    if sandbox is None:
        return None
    from rho_kernel.security.errors import SandboxError

    try:
        canonical = sandbox.validate_for_write(path)
    except (SandboxError, OSError, ValueError):
        return None
    relative = sandbox.relative(canonical)
    if relative in ("", ".") or relative.startswith("/"):
        return None
    if any(protected_name(part) for part in relative.split("/")):
        return None
    return relative


def _root_path(root: Path | SandboxRoot) -> Path:
    return root if isinstance(root, Path) else root.path


def _sandbox(root: Path | SandboxRoot) -> SandboxRoot | None:
    """The sandbox `root` is, or one opened on the directory `root` (None: it cannot be)."""
    from rho_kernel.security.errors import SandboxError
    from rho_kernel.security.sandbox import SandboxRoot

    if isinstance(root, SandboxRoot):
        return root
    try:
        return SandboxRoot(root)
    except (SandboxError, OSError):
        return None


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
    "every_command",
    "opened_relative",
    "plain_command",
    "project_relative",
    "read_specifier",
    "resolved_relative",
    "specifier_denies",
    "specifier_matches",
]
