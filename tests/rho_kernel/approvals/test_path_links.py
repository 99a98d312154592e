"""Path rules against real symlinks: a rule matches the file the tool will open, resolved
through links as the sandbox resolves it, and a suggested rule is built from that file."""

from __future__ import annotations

from pathlib import Path

import pytest
from approval_tools import WRITE

from rho_kernel.approvals.ruleset import ApprovalRules
from rho_kernel.approvals.subjects import resolved_relative, specifier_denies, specifier_matches
from rho_kernel.approvals.suggest import suggested_rules
from rho_kernel.security.sandbox import SandboxRoot


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with `src/up -> ..`, `src/sub -> ../other/deep`, `src/out -> /etc` and
    `src/git -> ../.git`."""
    root = tmp_path / "project"
    (root / "src" / "real").mkdir(parents=True)
    (root / "other" / "deep").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "Makefile").write_text("all:\n")
    (root / "src" / "up").symlink_to("..")
    (root / "src" / "sub").symlink_to("../other/deep")
    (root / "src" / "out").symlink_to("/etc")
    (root / "src" / "git").symlink_to("../.git")
    (root / "src" / "alias").symlink_to("real")
    (root / "docs").symlink_to("src/real")
    return root


@pytest.mark.parametrize(
    ("path", "resolved"),
    [
        ("src/a.txt", "src/a.txt"),
        ("src/up/Makefile", "Makefile"),
        ("src/up/src/up/x", "x"),
        ("src/alias/a.txt", "src/real/a.txt"),
        ("docs/a.md", "src/real/a.md"),
        ("src/sub/../victim1.txt", None),  # its `..` crosses a link: kernel and text differ
        ("src/real/../a.txt", "src/a.txt"),  # a `..` that crosses no link
        ("src/out/passwd", None),  # out of the project
        ("src/git/config", None),  # into .git
        ("src/up", None),  # the root itself
        ("../project/src/a.txt", None),  # up out of the root: the tools refuse it
    ],
)
def test_a_path_is_resolved_as_the_tool_will_open_it(
    project: Path, path: str, resolved: str | None
) -> None:
    assert resolved_relative(path, SandboxRoot(project)) == resolved
    assert resolved_relative(path, project) == resolved


def test_a_rule_does_not_reach_through_a_link_to_the_project_root(project: Path) -> None:
    root = SandboxRoot(project)
    assert specifier_matches("path", "src/**", {"path": "src/a.txt"}, root=root)
    for path in ("src/up/Makefile", "src/sub/../victim1.txt", "src/out/passwd", "src/git/HEAD"):
        assert not specifier_matches("path", "src/**", {"path": path}, root=root), path
    assert not specifier_matches("path", "other/**", {"path": "src/sub/../v.txt"}, root=root)
    assert specifier_matches("path", "Makefile", {"path": "src/up/Makefile"}, root=root)
    assert specifier_matches("path", "src/real/**", {"path": "docs/guide.md"}, root=root)
    assert not specifier_matches("path", "docs/**", {"path": "docs/guide.md"}, root=root)


def test_a_deny_rule_covers_the_path_as_written_and_as_resolved(project: Path) -> None:
    root = SandboxRoot(project)
    assert specifier_denies("path", "Makefile", {"path": "src/up/Makefile"}, root=root)
    assert specifier_denies("path", "src/**", {"path": "src/up/Makefile"}, root=root)
    assert specifier_denies("path", "other/**", {"path": "src/sub/x"}, root=root)
    # a `..` through a link: the file it reaches is denied, though no allow rule covers it
    assert specifier_denies("path", "other/**", {"path": "src/sub/../secret"}, root=root)
    assert specifier_denies("path", "src/**", {"path": "src/sub/../secret"}, root=root)
    rules = ApprovalRules.read(allow=[("write_file(src/**)", "--allow")])
    assert rules.allowing(WRITE, {"path": "src/up/Makefile"}, root=root, policy=None) is None
    denying = ApprovalRules.read(deny=[("write_file(Makefile)", "--deny")])
    assert denying.denying(WRITE, {"path": "src/up/Makefile"}, root=root) is not None


@pytest.mark.parametrize(
    ("path", "offered"),
    [
        ("src/up/Makefile", ["edit(Makefile)", "edit(**)"]),
        ("src/alias/a.txt", ["edit(src/real/a.txt)", "edit(src/real/**)", "edit(**)"]),
        ("src/sub/../victim1.txt", []),
        ("src/out/passwd", []),
        ("src/up/src/new.txt", ["edit(src/new.txt)", "edit(src/**)", "edit(**)"]),
    ],
)
def test_a_suggested_rule_is_built_from_the_resolved_path(
    project: Path, path: str, offered: list[str]
) -> None:
    root = SandboxRoot(project)
    rules = [s.rule for s in suggested_rules(WRITE, {"path": path}, root) if s.scope == "session"]
    assert rules == offered
    for rule in rules:  # each covers the call it was offered for
        read = ApprovalRules.read(allow=[(rule, "session")])
        assert read.allowing(WRITE, {"path": path}, root=root, policy=None) is not None


def test_a_link_swapped_in_later_changes_what_the_rule_matches(project: Path) -> None:
    root = SandboxRoot(project)
    (project / "src" / "gen").mkdir()
    assert specifier_matches("path", "src/**", {"path": "src/gen/Makefile"}, root=root)
    (project / "src" / "gen").rmdir()
    (project / "src" / "gen").symlink_to("..")
    assert not specifier_matches("path", "src/**", {"path": "src/gen/Makefile"}, root=root)


@pytest.mark.parametrize(
    "path",
    ["src/out/passwd", "src/git/config", "src/sub/../victim1.txt", "src/up", ".git/hooks/x"],
)
def test_the_project_wide_edit_rule_reaches_nothing_through_a_link_or_into_git(
    project: Path, path: str
) -> None:
    root = SandboxRoot(project)
    rules = ApprovalRules.read(allow=[("edit(**)", "project")])
    assert rules.allowing(WRITE, {"path": path}, root=root, policy=None) is None
    assert suggested_rules(WRITE, {"path": path}, root) == ()
