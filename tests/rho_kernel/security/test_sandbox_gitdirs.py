"""The file sandbox refuses writes into a git directory by another name than `.git`: the
one a `.git` file points to (worktrees, submodules, `--separate-git-dir`) and a bare
repository; reading them stays allowed, and a FIFO `.git` never hangs a write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_kernel.security import ProtectedPathError, SandboxRoot


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / "gitstuff" / "hooks").mkdir(parents=True)
    (path / "gitstuff" / "config").write_text("[core]\n")
    (path / "sub").mkdir()
    (path / "sub" / ".git").write_text("gitdir: ../gitstuff\n")
    (path / "src").mkdir()
    return path.resolve()


def bare(path: Path) -> None:
    for name in ("objects", "refs", "hooks"):
        (path / name).mkdir(parents=True)
    (path / "HEAD").write_text("ref: refs/heads/main\n")


WRITES = [
    "gitstuff/hooks/post-checkout",
    "gitstuff/config",
    "gitstuff/new/deeper/file",
    "./src/../gitstuff/hooks/x",
    "link/hooks/post-checkout",
    "linkdeep/post-checkout",
]


@pytest.mark.parametrize("path", WRITES)
def test_the_directory_a_git_file_points_to_is_never_written(root: Path, path: str) -> None:
    (root / "link").symlink_to("gitstuff")
    (root / "linkdeep").symlink_to("gitstuff/hooks")
    sandbox = SandboxRoot(root)
    with pytest.raises(ProtectedPathError) as raised:
        sandbox.write_parent(path, make_parents=True)
    assert "inside the git directory gitstuff" in str(raised.value)
    assert raised.value.protected == ".git"
    with pytest.raises(ProtectedPathError):
        sandbox.validate_for_write(path)
    with pytest.raises(ProtectedPathError):
        sandbox.write_parent(str(root / path))
    assert not (root / "gitstuff" / "new").exists()


def test_reading_a_git_directory_and_writing_beside_it_still_work(root: Path) -> None:
    sandbox = SandboxRoot(root)
    with sandbox.open_read("gitstuff/config") as handle:
        assert handle.read() == b"[core]\n"
    target = sandbox.write_parent("src/main.py")
    target.directory.close()
    assert sandbox.validate_for_write("sub/file.txt") == root / "sub" / "file.txt"


@pytest.mark.parametrize("place", ["vendor/lib.git", "deep/a/b/bare"], ids=["bare", "deep-bare"])
def test_a_bare_repository_is_never_written(root: Path, place: str) -> None:
    bare(root / place)
    sandbox = SandboxRoot(root)
    for path in (f"{place}/hooks/post-update", f"{place}/config", f"{place}/refs/heads/x"):
        with pytest.raises(ProtectedPathError):
            sandbox.write_parent(path, make_parents=True)


def test_a_worktree_git_directory_is_known_by_its_commondir(root: Path) -> None:
    wt = root / "elsewhere" / "wt"
    wt.mkdir(parents=True)
    (wt / "HEAD").write_text("ref: refs/heads/x\n")
    (wt / "commondir").write_text("../..\n")
    with pytest.raises(ProtectedPathError):
        SandboxRoot(root).write_parent("elsewhere/wt/config")


def test_a_project_that_is_a_bare_repository_itself_is_still_writable(tmp_path: Path) -> None:
    bare(tmp_path)
    target = SandboxRoot(tmp_path).write_parent("notes.txt")
    target.directory.close()


def test_a_git_file_made_later_counts_once_the_repositories_are_found_again(
    root: Path,
) -> None:
    (root / "later").mkdir()
    sandbox = SandboxRoot(root)
    sandbox.write_parent("later/a").directory.close()
    (root / "sub2").mkdir()
    (root / "sub2" / ".git").write_text(f"gitdir: {root}/later\n")
    sandbox.forget_repositories()
    with pytest.raises(ProtectedPathError):
        sandbox.write_parent("later/a")


def test_a_fifo_git_or_gitdir_file_never_hangs_a_write(root: Path) -> None:
    (root / "sub" / ".git").unlink()
    os.mkfifo(root / "sub" / ".git")
    (root / "sub3").mkdir()
    (root / "sub3" / ".git").symlink_to("../sub/.git")
    target = SandboxRoot(root).write_parent("gitstuff/hooks/x")  # nothing points there now
    target.directory.close()


def test_a_padded_gitdir_file_still_protects_its_directory(root: Path) -> None:
    (root / "sub" / ".git").write_text("gitdir: ../gitstuff" + "\r\n" * 100_000)
    with pytest.raises(ProtectedPathError):
        SandboxRoot(root).write_parent("gitstuff/hooks/x")
