"""Session discovery: locations, listing by mtime, header-only reads."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import (
    Session,
    find_latest_session,
    list_sessions,
    project_hash,
    rho_home,
    sessions_dir,
)


def make_session(project: Path, home: Path, messages: int, mtime: int) -> Path:
    with Session.create(project, home=home) as session:
        for index in range(messages):
            session.append_message(ChatMessage.user(f"m{index}"))
        assert session.path is not None
        path = session.path
    os.utime(path, (mtime, mtime))
    return path


def test_rho_home_prefers_argument_then_home_then_userprofile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert rho_home(tmp_path) == tmp_path / ".rho"
    monkeypatch.setenv("HOME", "/h")
    assert rho_home() == Path("/h/.rho")
    monkeypatch.delenv("HOME")
    monkeypatch.setenv("USERPROFILE", "/u")
    assert rho_home() == Path("/u/.rho")
    monkeypatch.delenv("USERPROFILE")
    assert rho_home() == Path("/tmp/.rho")


def test_project_hash_is_sha256_prefix_of_canonical_root(project: Path, tmp_path: Path) -> None:
    expected = hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]
    assert project_hash(project) == expected
    link = tmp_path / "link"
    link.symlink_to(project)
    assert project_hash(link) == expected
    assert project_hash(project / "sub" / "..") == expected


def test_sessions_dir_layout(project: Path, home: Path) -> None:
    assert sessions_dir(project, home) == home / ".rho" / "sessions" / project_hash(project)


def test_list_sessions_sorts_by_mtime_and_counts_entries(project: Path, home: Path) -> None:
    old = make_session(project, home, messages=1, mtime=1_000)
    new = make_session(project, home, messages=3, mtime=3_000)
    middle = make_session(project, home, messages=2, mtime=2_000)
    infos = list_sessions(project, home)
    assert [info.path for info in infos] == [new, middle, old]
    assert [info.entry_count for info in infos] == [3, 2, 1]
    assert [info.mtime_secs for info in infos] == [3_000, 2_000, 1_000]
    first = infos[0]
    assert first.id in new.name
    assert first.cwd == str(project.resolve())
    assert new.name.startswith(f"{first.created_at_secs}_")
    assert first.size_kb == new.stat().st_size // 1024


def test_list_sessions_limit_and_latest(project: Path, home: Path) -> None:
    paths = [make_session(project, home, messages=1, mtime=1_000 + i) for i in range(5)]
    assert [info.path for info in list_sessions(project, home, limit=2)] == [paths[4], paths[3]]
    assert find_latest_session(project, home) == paths[4]


def test_entry_count_skips_blank_lines_and_does_not_parse(project: Path, home: Path) -> None:
    path = make_session(project, home, messages=1, mtime=1_000)
    with path.open("ab") as file:
        file.write(b"\n   \nnot json at all\n{torn")
    [info] = list_sessions(project, home)
    assert info.entry_count == 3


def test_unreadable_headers_are_skipped(project: Path, home: Path) -> None:
    good = make_session(project, home, messages=1, mtime=1_000)
    directory = sessions_dir(project, home)
    garbage = directory / "2_deadbeef.jsonl"
    garbage.write_text("{not a header\n", encoding="utf-8")
    future = directory / "3_cafef00d.jsonl"
    future.write_text(
        '{"type":"Header","id":"cafef00d","version":3,"created_at_secs":3,"cwd":"/","parent_session":null}\n',
        encoding="utf-8",
    )
    empty = directory / "4_00000000.jsonl"
    empty.write_text("", encoding="utf-8")
    (directory / "notes.txt").write_text("ignored", encoding="utf-8")
    for path in (garbage, future, empty):
        os.utime(path, (5_000, 5_000))
    assert [info.path for info in list_sessions(project, home)] == [good]
    assert [info.path for info in list_sessions(project, home, limit=1)] == [good]
    assert find_latest_session(project, home) == good


def test_no_sessions(project: Path, home: Path) -> None:
    assert list_sessions(project, home) == []
    assert find_latest_session(project, home) is None


def test_default_home_comes_from_the_environment(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "envhome"))
    with Session.create(project) as session:
        session.append_message(ChatMessage.user("hi"))
        assert session.path is not None
        assert session.path.parent == tmp_path / "envhome" / ".rho" / "sessions" / project_hash(
            project
        )
    assert find_latest_session(project) == session.path
