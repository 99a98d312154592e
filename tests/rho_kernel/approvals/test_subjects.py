"""What a rule's parentheses match: one plain command, or a path inside the project; and,
whatever the command line, never another program than the rule's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.approvals.rules import RuleError
from rho_kernel.approvals.subjects import (
    CommandSpecifier,
    plain_command,
    project_relative,
    read_specifier,
    specifier_denies,
    specifier_matches,
)
from rho_kernel.security.bashparse import parse_bash
from rho_kernel.security.commands import CommandPolicy

ROOT = Path("/work/project")


def _command(rule: str, line: str, policy: CommandPolicy | None = None) -> bool:
    return specifier_matches("command", rule, {"command": line}, root=ROOT, policy=policy)


@pytest.mark.parametrize(
    "line", ["cargo test", "cargo test --all", "'cargo' test -p x", "cargo test >/dev/null"]
)
def test_a_prefix_rule_covers_its_command_with_more_words(line: str) -> None:
    assert _command("cargo test:*", line)


@pytest.mark.parametrize(
    "line",
    [
        "cargo testx",
        "cargo",
        "cargo build",
        "cargo test; rm -rf x",
        "cargo test && rm -rf x",
        "cargo test || rm -rf x",
        "cargo test | tee log",
        "cargo test\nrm -rf x",
        "cargo test $(rm -rf x)",
        "cargo test `rm -rf x`",
        "cargo test <(rm -rf x)",
        "cargo test $FLAGS",
        "cargo test *.rs",
        "cargo test > out.txt",
        "cargo test 2>&1",
        "X=1 cargo test",
        "./cargo test",
        "/usr/bin/cargo test",
        "sudo cargo test",
        "env cargo test",
        "timeout 5 cargo test",
        "cargo test (",
    ],
)
def test_a_prefix_rule_covers_nothing_else(line: str) -> None:
    assert not _command("cargo test:*", line)


def test_an_exact_rule_covers_exactly_its_command() -> None:
    assert _command("npm run build", "npm run build")
    assert _command("npm run build", "npm run 'build'")
    assert not _command("npm run build", "npm run build --watch")
    assert not _command("npm run build", "npm run")


def test_a_rule_never_covers_a_denylisted_or_wrapping_command() -> None:
    policy = CommandPolicy(denied_commands=["shutdown"])
    assert not _command("shutdown:*", "shutdown now", policy)
    assert not _command("git:*", "git -c core.pager='rm -rf x' log", policy)
    with pytest.raises(RuleError, match="not one plain command"):
        read_specifier("command", "bash -c 'cargo test':*")
    with pytest.raises(RuleError, match="not one plain command"):
        read_specifier("command", "cargo test | tee:*")
    with pytest.raises(RuleError, match="not one plain command"):
        read_specifier("command", ":*")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A real project directory named like ROOT (its paths are resolved as the tools do)."""
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/**", "src/main.rs", True),
        ("src/**", "src/a/b/c.rs", True),
        ("src/**", "{root}/src/main.rs", True),
        ("src/**", "./src/main.rs", True),
        ("src/**", "other/main.rs", False),
        ("src/**", "../project/src/main.rs", False),  # the tools refuse a path up and back
        ("src/**", "../elsewhere/src/main.rs", False),
        ("src/**", "/etc/passwd", False),
        ("src/**", "src/../../etc/passwd", False),
        ("src/**", "src/.git/config", False),
        ("src/**", "src/.RHO/config.toml", False),
        ("src/**", "~/src/x", False),
        ("docs/*.md", "docs/guide.md", True),
        ("docs/*.md", "docs/deep/guide.md", False),
        ("*.md", "deep/down/notes.md", True),  # a .gitignore line without a slash: any depth
    ],
)
def test_path_rules_match_inside_the_project_only(
    pattern: str, path: str, matches: bool, project: Path
) -> None:
    arguments: dict[str, Any] = {"path": path.format(root=project)}
    assert specifier_matches("path", pattern, arguments, root=project) is matches


@pytest.mark.parametrize("pattern", ["/etc/**", "../**", "src/../../x", ".git/**", "~/x", "!src"])
def test_a_path_rule_must_stay_in_the_project(pattern: str) -> None:
    with pytest.raises(RuleError):
        read_specifier("path", pattern)
    assert not specifier_matches("path", pattern, {"path": "src/a"}, root=ROOT)


def test_a_specifier_needs_a_subject_and_its_argument() -> None:
    assert not specifier_matches(None, "src/**", {"path": "src/a"}, root=ROOT)
    assert not specifier_matches("path", "src/**", {"file": "src/a"}, root=ROOT)
    assert not specifier_matches("command", "ls:*", {"command": ["ls"]}, root=ROOT)
    assert project_relative(".", ROOT) is None  # the root itself is not a file in it


# ── whatever the line, a rule covers only its own program ──────────────────────────────

_PROGRAMS = ["cargo", "npm", "git", "ls", "rm", "./cargo", "sudo", "bash", "env", "python"]
_WORDS = ["test", "run", "build", "-rf", "x", "--all", "'a b'", '"$HOME"', "*.rs", "$(rm x)"]
_JOINERS = [" ", " ; ", " && ", " || ", " | ", "\n", " & ", " > out ", " 2>&1 ", " `ls` "]


def _lines(start: str) -> st.SearchStrategy[str]:
    """Lines that begin with `start` (the rule's own words, most often) or another program,
    and go on with words, operators and substitutions."""
    tail = st.lists(
        st.tuples(st.sampled_from(_JOINERS), st.sampled_from(_PROGRAMS + _WORDS)), max_size=5
    )
    head = st.sampled_from([start, start, start, *_PROGRAMS])
    return st.tuples(head, tail).map(lambda drawn: drawn[0] + "".join(a + b for a, b in drawn[1]))


@st.composite
def _rules(draw: st.DrawFn) -> CommandSpecifier:
    program = draw(st.sampled_from(["cargo", "npm", "git", "ls", "rm", "python"]))
    words = draw(st.lists(st.sampled_from(["test", "run", "build", "x", "--all"]), max_size=2))
    return CommandSpecifier((program, *words), draw(st.booleans()))


@settings(max_examples=400, deadline=None)
@given(rule=_rules(), data=st.data())
def test_no_rule_covers_a_line_whose_programs_differ_from_its_own(
    rule: CommandSpecifier, data: st.DataObject
) -> None:
    line = data.draw(_lines(" ".join(rule.words)))
    if not rule.matches(line, CommandPolicy()):
        return
    parsed = parse_bash(line)
    programs = [command.words[0].value for command in parsed.commands]
    assert programs == [rule.words[0]], line
    words = tuple(word.value for word in parsed.commands[0].words)
    assert words[: len(rule.words)] == rule.words
    assert rule.prefix or words == rule.words
    assert plain_command(line) == words


@settings(max_examples=300, deadline=None)
@given(rule=_rules(), data=st.data())
def test_a_deny_rule_covers_every_line_that_runs_its_command(
    rule: CommandSpecifier, data: st.DataObject
) -> None:
    before = data.draw(_lines(data.draw(st.sampled_from(_PROGRAMS))))
    after = data.draw(_lines(""))
    wrapper = data.draw(st.sampled_from(["", "sudo ", "env X=1 ", "timeout 5 ", "/usr/bin/"]))
    command = " ".join(rule.words) if not rule.prefix else " ".join(rule.words) + " --extra"
    line = f"{before} ; {wrapper}{command}\n{after}"
    assert rule.denies(line), line


@pytest.mark.parametrize(
    ("rule", "line", "denied"),
    [
        ("git push:*", "git status && git push origin", True),
        ("git push:*", "bash -c 'git push'", True),
        ("git push:*", "echo $(git push)", True),
        ("git push:*", "git $(echo push)", True),  # a word only known when it runs
        ("git push:*", "$GIT push", True),  # a program only known when it runs
        ("git push:*", "git status", False),
        ("git push:*", "echo git push", False),
        ("git push:*", "git pushy", False),
        ("npm publish", "npm publish", True),
        ("npm publish", "npm publish --dry-run", False),  # an exact rule: exactly this
        ("rm:*", "'rm' -rf x", True),
        ("rm:*", "RM.EXE x", True),
    ],
)
def test_deny_rules_refuse_whatever_might_be_their_command(
    rule: str, line: str, denied: bool
) -> None:
    assert specifier_denies("command", rule, {"command": line}, root=ROOT) is denied


def test_a_deny_rule_covers_a_line_that_cannot_be_read() -> None:
    assert specifier_denies("command", "ls:*", {"command": "ls 'unclosed"}, root=ROOT)
    assert not specifier_denies("command", "ls:*", {"command": 42}, root=ROOT)
    assert specifier_denies("path", "secrets/**", {"path": "secrets/key"}, root=ROOT)
