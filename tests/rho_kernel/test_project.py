"""find_project_root: walk up to the first directory with a marker, never to home or above."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.project import PROJECT_MARKERS, ProjectRootError, find_project_root


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
    home = _workspace(tmp_path)  # the walk stops below home, whatever lies above it
    start = home / "a" / "b"
    start.mkdir(parents=True)
    alias = tmp_path / "link"
    alias.symlink_to(start, target_is_directory=True)
    assert find_project_root(alias, home=home) == start.resolve()


# ── the home directory ──────────────────────────────────────────────────────


def _home_with_user_config(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".rho").mkdir(parents=True)
    (home / ".rho" / "config.toml").write_text('[agent]\nmodel = "m"\n')
    return home


def test_users_own_config_does_not_make_home_the_root(tmp_path: Path) -> None:
    home = _home_with_user_config(tmp_path)
    notes = home / "scratch" / "notes"
    notes.mkdir(parents=True)
    assert find_project_root(notes, home=home) == notes.resolve()


def test_a_marker_in_home_itself_is_never_picked(tmp_path: Path) -> None:
    home = _home_with_user_config(tmp_path)
    (home / ".git").mkdir()  # dotfiles kept in git
    (home / "package.json").write_text("{}")
    notes = home / "notes"
    notes.mkdir()
    assert find_project_root(notes, home=home) == notes.resolve()


def test_a_marker_between_home_and_start_is_found(tmp_path: Path) -> None:
    home = _home_with_user_config(tmp_path)
    project = home / "work" / "proj"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    assert find_project_root(project / "src", home=home) == project.resolve()


@pytest.mark.parametrize("where", ["home", "parent of home"])
def test_starting_in_home_or_above_it_is_refused(tmp_path: Path, where: str) -> None:
    home = _home_with_user_config(tmp_path)
    start = home if where == "home" else home.parent
    with pytest.raises(ProjectRootError) as info:
        find_project_root(start, home=home)
    assert info.value.start == start.resolve()
    assert info.value.home == home.resolve()
    message = str(info.value)
    assert str(start.resolve()) in message and "--root" in message
    if where == "home":
        assert "is your home directory" in message
    else:
        assert f"contains your home directory ({home.resolve()})" in message


def test_outside_home_the_walk_skips_directories_containing_home(tmp_path: Path) -> None:
    base = _workspace(tmp_path)
    (base / ".git").mkdir()  # contains home: never a project root
    home = base / "users" / "me"
    home.mkdir(parents=True)
    app = base / "srv" / "app" / "sub"
    app.mkdir(parents=True)
    assert find_project_root(app, home=home) == app.resolve()
    (base / "srv" / "app" / "go.mod").write_text("")
    assert find_project_root(app, home=home) == (base / "srv" / "app").resolve()


def test_home_through_a_symlink_still_bounds_the_walk(tmp_path: Path) -> None:
    home = _home_with_user_config(tmp_path)
    notes = home / "notes"
    notes.mkdir()
    alias = tmp_path / "home-link"
    alias.symlink_to(home, target_is_directory=True)
    assert find_project_root(notes, home=alias) == notes.resolve()
    with pytest.raises(ProjectRootError):
        find_project_root(home, home=alias)


@pytest.mark.parametrize("variable", ["HOME", "USERPROFILE"])
def test_home_defaults_to_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    home = _home_with_user_config(tmp_path)
    notes = home / "notes"
    notes.mkdir()
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.setenv(variable, str(home))
    assert find_project_root(notes) == notes.resolve()
    with pytest.raises(ProjectRootError):
        find_project_root(home)
