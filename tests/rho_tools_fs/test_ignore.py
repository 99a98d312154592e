"""Ignore rules: negation, nesting, anchoring, directory-only patterns, exclude and global."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.security import SandboxRoot
from rho_tools_fs.ignore import (
    IgnoreFile,
    IgnoreRules,
    excludes_file_setting,
    global_excludes_path,
    translate_line,
)


def build(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    return root


def rules_for(root: Path, *dirs: str) -> IgnoreRules:
    rules = IgnoreRules(SandboxRoot(root))
    for directory in ("", *dirs):
        rules.load_dir(directory)
    return rules


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.log", "a/b.log", False, True),
        ("/top", "top", False, True),
        ("/top", "a/top", False, None),
        ("build/", "build", True, True),
        ("build/", "build", False, None),
        ("build/", "a/build", True, True),
        ("foo", "foo/bar", False, None),  # a matched parent decides nothing about children
        ("a/**", "a/x/y", False, True),
        ("a/**", "a", True, None),
        ("doc/*.md", "doc/x.md", False, True),
        ("doc/*.md", "doc/sub/x.md", False, None),
    ],
)
def test_a_pattern_matches_an_entrys_own_path(
    pattern: str, path: str, is_dir: bool, expected: bool | None
) -> None:
    assert IgnoreFile.parse(pattern).decide(path, is_dir) is expected


def test_the_last_matching_pattern_wins_and_negation_reincludes() -> None:
    rules = IgnoreFile.parse("*.log\n!keep.log\n# comment\n\n")
    assert rules.decide("x.log", False) is True
    assert rules.decide("keep.log", False) is False
    assert rules.decide("readme", False) is None


def test_a_nested_gitignore_overrides_its_parent(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "*.tmp\n", "sub/.gitignore": "!keep.tmp\n/local\n"})
    rules = rules_for(tmp_path, "sub")
    assert rules.ignored("a.tmp", False)
    assert rules.ignored("sub/x.tmp", False)
    assert not rules.ignored("sub/keep.tmp", False)
    assert rules.ignored("sub/local", False)
    assert not rules.ignored("local", False)  # anchored to sub/


def test_dot_ignore_outranks_gitignore(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "!notes.txt\n", ".ignore": "notes.txt\n"})
    assert rules_for(tmp_path).ignored("notes.txt", False)


def test_exclude_and_global_files_apply_without_a_git_repository(
    tmp_path: Path, no_user_git_config: Path
) -> None:
    project = build(tmp_path / "p", {".git/info/exclude": "secret.txt\n"})
    (no_user_git_config / ".gitconfig").write_text(
        '[user]\n  name = x\n[core]\n  excludesFile = "~/my ignore"  # comment\n'
    )
    (no_user_git_config / "my ignore").write_text("*.bak\n")
    rules = rules_for(project)
    assert rules.ignored("secret.txt", False)
    assert rules.ignored("deep/a.bak", False)
    assert not rules.ignored("a.txt", False)


def test_the_global_file_defaults_to_the_xdg_location(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert global_excludes_path(env) == tmp_path / "xdg" / "git" / "ignore"
    assert global_excludes_path({"HOME": str(tmp_path)}) == tmp_path / ".config/git/ignore"


def test_excludes_file_setting_reads_the_core_section_only() -> None:
    text = '[alias]\n excludesfile = nope\n[core "x"]\n[CORE]\n\tExcludesFile = /a/b\n'
    assert excludes_file_setting(text) == "/a/b"
    assert excludes_file_setting("[core]\n editor = vim\n") is None


@pytest.mark.parametrize(
    ("line", "base", "expected"),
    [
        ("*.log", "", "*.log"),
        ("*.log", "sub", "sub/**/*.log"),
        ("/top", "sub", "sub/top"),
        ("a/b", "sub", "sub/a/b"),
        ("build/", "sub", "sub/**/build/"),
        ("!keep", "a*b", "!a\\*b/**/keep"),
        ("# comment", "sub", None),
        ("", "sub", None),
    ],
)
def test_translate_line_rewrites_a_pattern_relative_to_the_root(
    line: str, base: str, expected: str | None
) -> None:
    assert translate_line(line, base) == expected


def test_a_symlinked_ignore_file_pointing_outside_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("*\n")
    project = build(tmp_path / "p", {"a.txt": "x"})
    (project / ".gitignore").symlink_to(outside)
    assert not rules_for(project).ignored("a.txt", False)
