"""Project rules kept under ~/.rho: private, per project, never following a link, and a
store that cannot be read counts as empty (said on stderr) until the next change."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from rho_kernel.approvals import project_store


def test_rules_are_kept_per_project_once_and_privately(tmp_path: Path) -> None:
    home, one, two = tmp_path / "home", tmp_path / "one", tmp_path / "two"
    project_store.remember(one, "run_command(make:*)", home)
    project_store.remember(one, "run_command(make:*)", home)
    project_store.remember(two, "memory", home)
    assert project_store.project_rules(one, home) == ["run_command(make:*)"]
    assert project_store.project_rules(two, home) == ["memory"]
    store = project_store.store_path(home)
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.parent.stat().st_mode) == 0o700
    assert project_store.forget(one, "run_command(make:*)", home)
    assert not project_store.forget(one, "run_command(make:*)", home)
    assert project_store.project_rules(one, home) == []
    assert project_store.project_rules(two, home) == ["memory"]


def test_concurrent_remembers_keep_every_rule(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    threads = [
        threading.Thread(target=project_store.remember, args=(root, f"tool_{n}", home))
        for n in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(project_store.project_rules(root, home)) == [f"tool_{n}" for n in range(8)]


def test_a_link_at_the_store_is_replaced_not_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".rho").mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    project_store.store_path(home).symlink_to(target)
    project_store.remember(tmp_path / "p", "memory", home)
    assert target.read_text() == "{}"
    assert not project_store.store_path(home).is_symlink()


@pytest.mark.parametrize("content", ["not json", '{"projects": ["x"]}', '{"projects": {"/p": 3}}'])
def test_a_store_that_cannot_be_read_counts_as_empty(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / ".rho").mkdir(parents=True, mode=0o700)
    project_store.store_path(home).write_text(content)
    assert project_store.project_rules(Path("/p"), home) == []
    project_store.remember(Path("/p"), "memory", home)  # replaced at the next change
    assert project_store.project_rules(Path("/p"), home) == ["memory"]


def test_a_fifo_at_the_store_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / ".rho").mkdir(parents=True, mode=0o700)
    os.mkfifo(project_store.store_path(home))
    assert project_store.project_rules(Path("/p"), home) == []  # no hang waiting for a writer
    assert "unreadable" in capsys.readouterr().err
