"""find_project_root: walk up to the first directory with a marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.project import PROJECT_MARKERS, find_project_root


def _workspace(tmp_path: Path) -> Path:
    """A fresh, marker-free directory to build a project layout in."""
    base = tmp_path / "ws"
    base.mkdir()
    return base


@pytest.mark.parametrize("marker", PROJECT_MARKERS)
def test_each_marker_is_recognised(tmp_path: Path, marker: str) -> None:
    project = _workspace(tmp_path) / "proj"
    (project / "deep" / "er").mkdir(parents=True)
    marker_path = project / marker
    marker_path.parent.mkdir(parents=True, exist_ok=True)
    if marker == ".git":
        marker_path.mkdir()
    else:
        marker_path.write_text("")
    assert find_project_root(project / "deep" / "er") == project.resolve()


def test_start_itself_counts(tmp_path: Path) -> None:
    project = _workspace(tmp_path)
    (project / "Cargo.toml").write_text("")
    assert find_project_root(project) == project.resolve()


def test_nearest_marker_wins(tmp_path: Path) -> None:
    outer = _workspace(tmp_path)
    (outer / ".git").mkdir()
    inner = outer / "crates" / "inner"
    (inner / "src").mkdir(parents=True)
    (inner / "Cargo.toml").write_text("")
    assert find_project_root(inner / "src") == inner.resolve()


def test_git_file_counts(tmp_path: Path) -> None:
    worktree = _workspace(tmp_path)
    (worktree / ".git").write_text("gitdir: /elsewhere\n")
    (worktree / "sub").mkdir()
    assert find_project_root(worktree / "sub") == worktree.resolve()


def test_rho_dir_without_config_is_not_a_marker(tmp_path: Path) -> None:
    base = _workspace(tmp_path)
    (base / "go.mod").write_text("")
    child = base / "child"
    (child / ".rho").mkdir(parents=True)
    assert find_project_root(child) == base.resolve()


def test_result_is_canonical(tmp_path: Path) -> None:
    real = _workspace(tmp_path) / "real"
    (real / "sub").mkdir(parents=True)
    (real / "package.json").write_text("{}")
    alias = tmp_path / "alias"
    alias.symlink_to(real, target_is_directory=True)
    assert find_project_root(alias / "sub" / ".." / "sub") == real.resolve()


def test_no_marker_returns_canonical_start(tmp_path: Path) -> None:
    if find_project_root(tmp_path) != tmp_path.resolve():
        pytest.skip("the host has a project marker above the temporary directory")
    start = _workspace(tmp_path) / "a" / "b"
    start.mkdir(parents=True)
    alias = tmp_path / "link"
    alias.symlink_to(start, target_is_directory=True)
    assert find_project_root(alias) == start.resolve()
