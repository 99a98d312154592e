"""Writes never land in .git or .rho: by name, by case, through symlinks, at any depth."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.security import (
    PROTECTED_NAMES,
    ProtectedPathError,
    SandboxRoot,
    protected_name,
)

# Every case holds through directory fds and with the path-check fallback alike.
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def root(tmp_path: Path) -> SandboxRoot:
    project = tmp_path / "project"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("")
    (project / "sub" / ".git").mkdir(parents=True)
    (project / "worktree").mkdir()
    (project / "worktree" / ".git").write_text("gitdir: /elsewhere\n")
    return SandboxRoot(project)


def test_protected_names_constant() -> None:
    assert frozenset({".git", ".rho"}) == PROTECTED_NAMES


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (".git", ".git"),
        (".GIT", ".git"),
        (".Rho", ".rho"),
        (".git.", ".git"),  # NTFS drops trailing dots and spaces
        (".git ", ".git"),
        (".git::$INDEX_ALLOCATION", ".git"),  # an NTFS stream of the directory
        (".g\u200cit", ".git"),  # HFS+ ignores zero-width joiners
        ("\ufeff.rho", ".rho"),
        ("GIT~1", ".git"),  # the NTFS short name
        (".github", None),
        ("git", None),
        (".gitignore", None),
        ("rho", None),
        ("..", None),
    ],
)
def test_protected_name(name: str, expected: str | None) -> None:
    assert protected_name(name) == expected


@pytest.mark.parametrize(
    "path",
    [
        ".git/hooks/pre-push",
        ".git/config",
        ".GIT/hooks/pre-commit",
        ".Git/new-dir/file",
        "./.git/hooks/pre-push",
        "sub/.git/hooks/post-checkout",  # nested repositories and submodules
        "sub/.GIT/x",
        "deep/new/.git/x",  # even below directories that do not exist yet
        ".rho/config.toml",
        "sub/.rho/config.toml",
    ],
)
def test_writes_inside_protected_directories_are_refused(root: SandboxRoot, path: str) -> None:
    with pytest.raises(ProtectedPathError, match="which rho never writes to"):
        root.write_parent(path, make_parents=True)
    with pytest.raises(ProtectedPathError):
        root.validate_for_write(path)
    assert not (root.path / "deep").exists()


def test_the_message_says_why(root: SandboxRoot) -> None:
    with pytest.raises(ProtectedPathError) as info:
        root.write_parent(".git/hooks/pre-push")
    assert str(info.value) == (
        "'.git/hooks/pre-push' is inside .git/, which rho never writes to "
        "(git hooks and config would run as code)"
    )
    assert info.value.protected == ".git"
    with pytest.raises(ProtectedPathError) as info:
        root.write_parent(".rho/config.toml")
    assert str(info.value) == (
        "'.rho/config.toml' is inside .rho/, which rho never writes to "
        "(it holds rho's own configuration)"
    )


def test_a_git_file_itself_is_refused(root: SandboxRoot) -> None:
    for path in ("worktree/.git", ".git", "new/.git"):
        with pytest.raises(ProtectedPathError, match=r"is \.git itself"):
            root.write_parent(path, make_parents=True)
    assert (root.path / "worktree" / ".git").read_text() == "gitdir: /elsewhere\n"


def test_symlinks_into_protected_directories_are_refused(root: SandboxRoot) -> None:
    (root.path / "hooks").symlink_to(".git/hooks", target_is_directory=True)
    (root.path / "settings.toml").symlink_to(".rho/config.toml")
    (root.path / "abs-hooks").symlink_to(root.path / ".git" / "hooks")
    (root.path / "sub" / "up").symlink_to("../.git", target_is_directory=True)
    for path in ("hooks/pre-push", "settings.toml", "abs-hooks/pre-push", "sub/up/config"):
        with pytest.raises(ProtectedPathError, match=r"inside \.git/|inside \.rho/"):
            root.write_parent(path, make_parents=True)
        with pytest.raises(ProtectedPathError):
            root.validate_for_write(path)
    assert sorted(p.name for p in (root.path / ".git" / "hooks").iterdir()) == []


def test_a_symlink_named_git_is_refused(root: SandboxRoot) -> None:
    (root.path / "real").mkdir()
    (root.path / "elsewhere").mkdir()
    (root.path / "elsewhere" / ".git").symlink_to("../real", target_is_directory=True)
    with pytest.raises(ProtectedPathError):
        root.write_parent("elsewhere/.git/hooks", make_parents=True)
    assert list((root.path / "real").iterdir()) == []


def test_absolute_paths_into_git_are_refused(root: SandboxRoot) -> None:
    with pytest.raises(ProtectedPathError):
        root.write_parent(str(root.path / ".git" / "config"))


def test_reading_protected_directories_stays_allowed(root: SandboxRoot) -> None:
    with root.open_read(".git/config") as handle:
        assert handle.read() == b"[core]\n"
    assert root.validate(".rho/config.toml") == root.path / ".rho" / "config.toml"
    with root.open_dir(".git") as directory, directory.scandir() as entries:
        assert sorted(entry.name for entry in entries) == ["config", "hooks"]


def test_similar_names_are_writable(root: SandboxRoot) -> None:
    for path in (".github/workflows/ci.yml", ".gitignore", "git/x", ".rhosts", "a.git/x"):
        with root.write_parent(path, make_parents=True) as target:
            assert target.path == root.path / path
