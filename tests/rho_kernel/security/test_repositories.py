"""`find_repositories`: every `.git` and `.rho` of a project, the git directories `.git`
files point to, bare git directories, and what a later walk finds created."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_kernel.security.repositories import (
    MAX_GITDIR_BYTES,
    find_repositories,
    is_git_directory,
    read_pointer,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".git" / "hooks").mkdir(parents=True)
    return path.resolve()


def bare(path: Path) -> Path:
    """A directory that git takes for a git directory."""
    (path / "objects").mkdir(parents=True)
    (path / "refs").mkdir()
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    return path


def test_every_git_and_rho_at_any_depth_is_found_and_not_descended(root: Path) -> None:
    (root / "a" / "b" / ".git" / "inner" / ".rho").mkdir(parents=True)
    (root / "c" / ".rho").mkdir(parents=True)
    (root / ".rho").mkdir()
    (root / "d" / ".GIT").mkdir(parents=True)  # what a case-insensitive file system sees
    found = find_repositories(root)
    assert set(found.read_only) == {
        root / ".git",
        root / ".rho",
        root / "a" / "b" / ".git",
        root / "c" / ".rho",
        root / "d" / ".GIT",
    }
    assert found.entries[root / "a" / "b" / ".git"][0] == "directory"


def test_a_git_file_keeps_the_directory_it_points_to_inside_the_project(root: Path) -> None:
    gitstuff = bare(root / "gitstuff")
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../gitstuff\n")
    (root / "wt").mkdir()
    (root / "wt" / ".git").write_text(f"gitdir: {root}/.git/worktrees/wt\n")
    found = find_repositories(root)
    assert root / "sub" / ".git" in found.read_only and gitstuff in found.read_only
    assert found.entries[root / "sub" / ".git"][0] == "file"


def test_a_git_file_pointing_at_a_directory_without_markers_still_protects_it(
    root: Path,
) -> None:
    (root / "plain").mkdir()
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../plain")
    assert root / "plain" in find_repositories(root).read_only


def test_a_nested_git_file_pointing_outside_the_project_leaves_that_place_alone(
    root: Path, tmp_path: Path
) -> None:
    elsewhere = bare(tmp_path / "elsewhere")
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text(f"gitdir: {elsewhere}\n")
    found = find_repositories(root)
    assert elsewhere not in found.read_only and root / "sub" / ".git" in found.read_only


def test_the_projects_own_git_file_keeps_its_git_and_common_directory_wherever(
    root: Path, tmp_path: Path
) -> None:
    main = tmp_path / "main"
    worktree_gitdir = main / ".git" / "worktrees" / "project"
    worktree_gitdir.mkdir(parents=True)
    (worktree_gitdir / "HEAD").write_text("ref: refs/heads/x\n")
    (worktree_gitdir / "commondir").write_text("../..\n")
    (root / ".git" / "hooks").rmdir()
    (root / ".git").rmdir()
    (root / ".git").write_text(f"gitdir: {worktree_gitdir}\n")
    found = find_repositories(root)
    assert found.read_only == (root / ".git", worktree_gitdir, main / ".git")


def test_a_symlinked_git_keeps_its_target_and_a_dangling_one_is_watched(root: Path) -> None:
    (root / "real").mkdir()
    (root / "a").mkdir()
    (root / "a" / ".git").symlink_to("../real")
    (root / "b").mkdir()
    (root / "b" / ".git").symlink_to("../not-yet")
    before = find_repositories(root)
    assert root / "real" in before.read_only and root / "a" / ".git" in before.read_only
    (root / "not-yet" / "hooks").mkdir(parents=True)
    assert find_repositories(root).created_since(before) == [root / "not-yet"]


def test_a_bare_repository_is_found_but_not_the_root_itself(root: Path) -> None:
    repo = bare(root / "vendor" / "lib.git")
    (repo / "refs" / ".rho").mkdir()  # inside a git directory: not walked
    wt = root / "wtdir"
    wt.mkdir()
    (wt / "HEAD").write_text("ref: refs/heads/main\n")
    (wt / "commondir").write_text("..\n")
    found = find_repositories(bare(root))
    assert repo in found.read_only and wt in found.read_only
    assert root not in found.read_only and repo / "refs" / ".rho" not in found.read_only
    assert is_git_directory(["HEAD", "objects", "refs", "x"])
    assert not is_git_directory(["HEAD", "objects"])


def test_links_to_directories_are_not_followed(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (root / "link").symlink_to(other)
    assert find_repositories(root).read_only == (root / ".git",)


def test_a_fifo_git_does_not_hang_and_is_still_kept(root: Path) -> None:
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / ".git")
    (root / "lnk").mkdir()
    (root / "lnk" / ".git").symlink_to("../sub/.git")
    found = find_repositories(root)
    assert found.entries[root / "sub" / ".git"][0] == "special"
    assert root / "sub" / ".git" in found.read_only
    assert read_pointer(root / "sub" / ".git") == []


def test_read_pointer_reads_only_regular_files_and_at_most_the_limit(root: Path) -> None:
    pointer = root / "pointer"
    pointer.write_text("gitdir: ../x\r\n")
    assert read_pointer(pointer) == ["../x"]
    pointer.write_text("gitdir: ../x" + "\n" * (3 * MAX_GITDIR_BYTES))
    assert read_pointer(pointer) == ["../x"]
    pointer.write_text("gitdir: ../x\nmore")
    assert read_pointer(pointer) == ["../x\nmore", "../x"]
    pointer.write_text("not a pointer")
    assert read_pointer(pointer) == []
    (root / "dir-link").symlink_to(pointer)
    assert read_pointer(root / "dir-link") == []  # never through a link
    assert read_pointer(root / "missing") == []
    assert read_pointer(root / ".git") == []  # a directory


def test_created_since_names_new_and_replaced_entries_only(root: Path) -> None:
    (root / "keep" / ".git").mkdir(parents=True)
    (root / "swap").mkdir()
    (root / "swap" / ".git").write_text("gitdir: ../nowhere\n")
    before = find_repositories(root)
    (root / "new" / ".rho").mkdir(parents=True)
    (root / "swap" / ".git").unlink()
    (root / "swap" / ".git").mkdir()
    bare(root / "made.git")
    after = find_repositories(root)
    assert set(after.created_since(before)) == {
        root / "new" / ".rho",
        root / "swap" / ".git",
        root / "made.git",
    }
    assert find_repositories(root).created_since(after) == []


def test_the_kernels_file_systems_are_never_walked(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_kernel.security import repositories

    assert {"/proc", "/sys", "/dev"} <= repositories.KERNEL_FILE_SYSTEMS
    (root / "proc" / "1" / ".git").mkdir(parents=True)
    monkeypatch.setattr(repositories, "KERNEL_FILE_SYSTEMS", frozenset({str(root / "proc")}))
    assert find_repositories(root).read_only == (root / ".git",)


# ── directories the walk cannot list ───────────────────────────────────────

#: A walk made as `nobody`, printing what it found (run through `setpriv` when the suite is
#: root: root lists every directory whatever its mode).
_WALK_AS_USER = """
import json, sys
from pathlib import Path
from rho_kernel.security.repositories import find_repositories
found = find_repositories(Path(sys.argv[1]))
print(json.dumps({str(p): list(i) for p, i in found.entries.items()}))
print(json.dumps([str(p) for p in found.read_only]))
"""


def _walk_as_user(root: Path) -> tuple[dict[str, list[object]], list[str]]:
    import json
    import shutil
    import subprocess
    import sys

    argv = [sys.executable, "-c", _WALK_AS_USER, str(root)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("the suite runs as root and setpriv (util-linux) is missing")
        argv = [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    entries, read_only = done.stdout.splitlines()
    return json.loads(entries), json.loads(read_only)


def test_a_directory_the_walk_cannot_list_is_kept_read_only_whole(outside_tmp: Path) -> None:
    root = outside_tmp / "project"
    (root / "sub" / ".git").mkdir(parents=True)
    (root / "open").mkdir()
    for folder in (outside_tmp, root, root / "open"):
        folder.chmod(0o755)
    (root / "sub").chmod(0)
    try:
        entries, read_only = _walk_as_user(root)
    finally:
        (root / "sub").chmod(0o755)
    assert str(root / "sub") in read_only
    assert entries[str(root / "sub")][0] == "unreadable"
    assert str(root / "open") not in read_only


def test_what_a_listable_directory_shows_later_is_revealed_not_created(root: Path) -> None:
    from rho_kernel.security.repositories import Repositories

    (root / "sub" / ".git").mkdir(parents=True)
    after = find_repositories(root)
    info = os.lstat(root / "sub")
    before = Repositories(
        root,
        {
            root / ".git": after.entries[root / ".git"],
            root / "sub": ("unreadable", info.st_dev, info.st_ino),
        },
        (root / ".git", root / "sub"),
    )
    assert after.created_since(before) == [root / "sub" / ".git"]
    assert after.revealed_since(before) == [root / "sub" / ".git"]
    (root / "new" / ".git").mkdir(parents=True)
    again = find_repositories(root)
    assert again.revealed_since(before) == [root / "sub" / ".git"]
    assert root / "new" / ".git" in again.created_since(before)
