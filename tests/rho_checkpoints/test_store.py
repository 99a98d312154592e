"""Checkpoint stores against real git and real files: snapshots, what changed, diffs,
restores, and what is never recorded, touched or run."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from rho_checkpoints import Change, CheckpointError, CheckpointStore, git_available
from rho_checkpoints.gitcmd import store_environment


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    (root / "src" / "b.py").write_text("b = 2\n")
    (root / "run.sh").write_text("echo hi\n")
    (root / "notes.txt").write_text("keep me\n")
    return root


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` but `.git`, with its bytes and permission bits."""
    found: dict[str, tuple[bytes, int]] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".git"]
        for name in names:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            found[relative] = (path.read_bytes(), stat.S_IMODE(path.lstat().st_mode))
    return found


def _recorded(store: CheckpointStore, commit: str) -> set[str]:
    listed = store.git.run(["ls-tree", "-r", "-z", "--name-only", commit])
    return {os.fsdecode(path) for path in listed.split(b"\0") if path}


def _git(root: Path, *args: str) -> bytes:
    env = store_environment(root / ".git", root, os.environ)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        del env[name]
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t")
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True).stdout


def test_changed_lists_edits_creations_deletions_and_mode_changes_and_restore_undoes_them(
    project: Path, state: Path
) -> None:
    store = CheckpointStore.open(project, state)
    before = _files(project)
    commit = store.snapshot("before")
    (project / "src" / "a.py").write_text("a = 10\n")
    (project / "src" / "b.py").write_bytes(b"b = 20\r\n")
    (project / "new" / "deep").mkdir(parents=True)
    (project / "new" / "deep" / "c.py").write_text("c = 3\n")
    (project / "notes.txt").unlink()
    (project / "run.sh").chmod(0o755)

    assert store.changed(commit) == [
        Change("new/deep/c.py", "added"),
        Change("notes.txt", "deleted"),
        Change("run.sh", "modified"),
        Change("src/a.py", "modified"),
        Change("src/b.py", "modified"),
    ]
    undone = store.restore(commit)

    assert {change.path for change in undone} == {
        "new/deep/c.py",
        "notes.txt",
        "run.sh",
        "src/a.py",
        "src/b.py",
    }
    assert _files(project) == before
    assert not (project / "new").exists()
    assert store.changed(commit) == []


def test_each_change_a_restore_undoes_says_what_the_restore_did_to_the_file(
    project: Path, state: Path
) -> None:
    store = CheckpointStore.open(project, state)
    commit = store.snapshot("before")
    (project / "src" / "a.py").write_text("a = 10\n")
    (project / "notes.txt").unlink()
    (project / "extra.txt").write_text("new\n")

    undone = store.restore(commit)

    assert {(c.path, c.status, c.restore_action) for c in undone} == {
        ("extra.txt", "added", "deleted"),
        ("notes.txt", "deleted", "recreated"),
        ("src/a.py", "modified", "restored"),
    }
    assert not (project / "extra.txt").exists()
    assert (project / "notes.txt").read_text() == "keep me\n"
    assert (project / "src" / "a.py").read_text() == "a = 1\n"


def test_restore_of_some_paths_leaves_the_others_as_they_are(project: Path, state: Path) -> None:
    store = CheckpointStore.open(project, state)
    commit = store.snapshot("before")
    (project / "src" / "a.py").write_text("a = 10\n")
    (project / "src" / "b.py").write_text("b = 20\n")
    (project / "notes.txt").unlink()
    (project / "extra.txt").write_text("new\n")

    undone = store.restore(commit, ["src/a.py", str(project / "notes.txt")])

    assert undone == [Change("notes.txt", "deleted"), Change("src/a.py", "modified")]
    assert (project / "src" / "a.py").read_text() == "a = 1\n"
    assert (project / "notes.txt").read_text() == "keep me\n"
    assert (project / "src" / "b.py").read_text() == "b = 20\n"
    assert (project / "extra.txt").exists()
    assert store.restore(commit, ["./src/"]) == [Change("src/b.py", "modified")]
    assert (project / "src" / "b.py").read_text() == "b = 2\n"
    assert store.restore(commit, [str(project)]) == [Change("extra.txt", "added")]
    assert not (project / "extra.txt").exists()


def test_the_projects_own_git_repository_is_untouched(project: Path, state: Path) -> None:
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "first")
    (project / "src" / "a.py").write_text("a = 'stashed'\n")
    _git(project, "stash", "-q")
    (project / "src" / "b.py").write_text("b = 'staged'\n")
    _git(project, "add", "src/b.py")
    head, index = _git(project, "rev-parse", "HEAD"), (project / ".git" / "index").read_bytes()
    stashes, refs = _git(project, "stash", "list"), _git(project, "for-each-ref")

    store = CheckpointStore.open(project, state)
    commit = store.snapshot("before")
    (project / "src" / "b.py").write_text("b = 'later'\n")
    store.changed(commit)
    store.diff(commit, "src/b.py")
    store.restore(commit)

    assert (project / "src" / "b.py").read_text() == "b = 'staged'\n"
    assert _git(project, "rev-parse", "HEAD") == head
    assert (project / ".git" / "index").read_bytes() == index
    assert _git(project, "stash", "list") == stashes
    assert _git(project, "for-each-ref") == refs
    assert not any(path.startswith(".git/") for path in _recorded(store, commit))


def test_ignored_private_nested_and_large_files_are_neither_recorded_nor_deleted(
    project: Path, state: Path
) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    store = CheckpointStore.open(project, state, max_file_bytes=1000)
    commit = store.snapshot("before")
    (project / "debug.log").write_text("ignored\n")
    (project / "build").mkdir()
    (project / "build" / "out.bin").write_text("ignored too\n")
    (project / ".rho").mkdir()
    (project / ".rho" / "session.jsonl").write_text("{}\n")
    (project / "src" / ".rho").mkdir()
    (project / "src" / ".rho" / "x").write_text("private\n")
    (project / "big.bin").write_bytes(b"x" * 1001)
    (project / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(project / "sub")], check=True)
    (project / "sub" / "inner.txt").write_text("nested repository\n")
    (project / "other" / ".git").mkdir(parents=True)
    (project / "other" / ".git" / "config").write_text("not a repository\n")
    (project / "other" / "kept.txt").write_text("recorded\n")

    later = store.snapshot("later")
    assert _recorded(store, later) == _recorded(store, commit) | {"other/kept.txt"}
    assert store.changed(commit) == [Change("other/kept.txt", "added")]
    store.restore(commit)

    for kept in ("debug.log", "build/out.bin", ".rho/session.jsonl", "src/.rho/x", "big.bin"):
        assert (project / kept).exists(), kept
    assert (project / "sub" / "inner.txt").exists()
    assert (project / "other" / ".git" / "config").exists()
    assert not (project / "other" / "kept.txt").exists()


def test_a_file_that_grows_past_the_limit_is_dropped_from_later_snapshots_never_overwritten(
    project: Path, state: Path
) -> None:
    store = CheckpointStore.open(project, state, max_file_bytes=1000)
    commit = store.snapshot("before")
    (project / "notes.txt").write_bytes(b"y" * 2000)

    assert "notes.txt" not in _recorded(store, store.snapshot("later"))
    assert store.changed(commit) == [Change("notes.txt", "modified")]
    with pytest.raises(CheckpointError, match=r"notes\.txt is 2000 bytes, over the size limit"):
        store.restore(commit)
    assert (project / "notes.txt").read_bytes() == b"y" * 2000


def test_a_file_ignored_later_is_dropped_from_later_snapshots(project: Path, state: Path) -> None:
    store = CheckpointStore.open(project, state)
    store.snapshot("before")
    (project / ".gitignore").write_text("notes.txt\n")

    assert _recorded(store, store.snapshot("later")) == {
        ".gitignore",
        "run.sh",
        "src/a.py",
        "src/b.py",
    }


def test_diff_shows_the_change_and_is_cut_at_max_bytes(project: Path, state: Path) -> None:
    store = CheckpointStore.open(project, state)
    commit = store.snapshot("before")
    (project / "src" / "a.py").write_text("a = 10\n")
    (project / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1000)))

    diff = store.diff(commit, "src/a.py")
    assert "--- a/src/a.py\n+++ b/src/a.py\n" in diff
    assert "-a = 1\n+a = 10\n" in diff
    assert store.diff(commit, "src/b.py") == ""

    cut = store.diff(commit, "notes.txt", max_bytes=500)
    assert cut.endswith("\n… diff cut at 500 bytes\n")
    assert len(cut.encode()) <= 500 + len("… diff cut at 500 bytes\n".encode())
    assert "+line 0\n" in cut


def test_restore_refuses_paths_outside_the_project_or_inside_git_and_rho(
    project: Path, state: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "escape").symlink_to(outside)
    store = CheckpointStore.open(project, state)
    commit = store.snapshot("before")

    refused = {
        "../outside": "has '..' in it",
        "src/../../outside": "has '..' in it",
        str(outside): "is outside the project",
        "/etc/passwd": "is outside the project",
        ".git/config": "inside .git or .rho",
        "src/.rho/x": "inside .git or .rho",
        ".rho": "inside .git or .rho",
        "escape/f": "lies beyond escape, which is a symbolic link now",
        "": "is no path",
    }
    for path, why in refused.items():
        with pytest.raises(CheckpointError, match=re.escape(why)):
            store.restore(commit, [path])
        with pytest.raises(CheckpointError, match=re.escape(why)):
            store.plan(commit, [path])


def test_an_unknown_snapshot_is_an_error(project: Path, state: Path) -> None:
    store = CheckpointStore.open(project, state)
    with pytest.raises(CheckpointError, match="no snapshot"):
        store.changed("0" * 40)
    with pytest.raises(CheckpointError, match="no snapshot"):
        store.restore("--help")


def test_attributes_in_the_project_run_nothing_and_convert_nothing(
    project: Path, state: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    _git(project, "init", "-q")
    _git(project, "config", "filter.evil.clean", f"touch {marker}; cat")
    _git(project, "config", "filter.evil.smudge", f"touch {marker}; cat")
    _git(project, "config", "diff.evil.textconv", f"touch {marker}; cat")
    (project / ".gitattributes").write_text("* filter=evil diff=evil text eol=crlf ident\n")
    (project / "mixed.txt").write_bytes(b"$Id$\nunix\nwindows\r\n")
    store = CheckpointStore.open(project, state)
    before = _files(project)

    commit = store.snapshot("before")
    (project / "mixed.txt").write_bytes(b"changed\n")
    assert "+changed" in store.diff(commit, "mixed.txt")
    store.restore(commit)

    assert not marker.exists()
    assert _files(project) == before


def test_the_store_is_private_and_outside_the_project(project: Path, state: Path) -> None:
    store = CheckpointStore.open(project, state)
    store.snapshot("one")

    assert store.git.store_dir.parent == state / "checkpoints"
    assert stat.S_IMODE(store.git.store_dir.stat().st_mode) == 0o700
    assert not (project / ".git").exists()
    assert store.size_bytes() > 0
    assert CheckpointStore.open(project, state).git.store_dir == store.git.store_dir


def test_git_available_says_why_checkpoints_are_off_without_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert git_available() is None
    monkeypatch.setenv("PATH", str(tmp_path))
    message = git_available()
    assert message is not None
    assert message.startswith("checkpoints are off: git is not installed (")
    assert "\n" not in message


def test_a_restore_deletes_or_replaces_links_themselves_never_what_they_point_to(
    project: Path, state: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not the project's\n")
    os.symlink("a.py", project / "src" / "kept_link")
    store = CheckpointStore.open(project, state)
    first = store.snapshot("first")
    os.symlink("a.py", project / "src" / "new_link")  # added since: deleted by the restore
    (project / "notes.txt").unlink()
    os.symlink(outside, project / "notes.txt")  # a link where a file was: replaced
    (project / "src" / "kept_link").unlink()  # a link deleted since: comes back as a link
    store.restore(first)
    assert (project / "src" / "a.py").read_text() == "a = 1\n"
    assert not os.path.lexists(project / "src" / "new_link")
    assert not (project / "notes.txt").is_symlink()
    assert (project / "notes.txt").read_text() == "keep me\n"
    assert outside.read_text() == "not the project's\n"
    assert os.readlink(project / "src" / "kept_link") == "a.py"
