"""Session discovery: locations, listing by mtime, header-only reads."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import (
    Session,
    SessionNotFound,
    find_latest_session,
    find_session,
    list_sessions,
)
from rho_kernel.session.discovery import project_hash, rho_home, sessions_dir


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


def write_session(project: Path, home: Path, session_id: str, mtime: int) -> Path:
    """A session file with the given id (as another writer, or a copy, could leave it)."""
    directory = sessions_dir(project, home)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{mtime}_{session_id}.jsonl"
    header = (
        f'{{"type":"Header","id":"{session_id}","version":2,"created_at_secs":{mtime},'
        '"cwd":"/p","parent_session":null}\n'
    )
    path.write_text(header)
    os.utime(path, (mtime, mtime))
    return path


def test_list_sessions_pages_with_limit_and_offset(project: Path, home: Path) -> None:
    paths = [write_session(project, home, f"{i:08x}", 1000 + i) for i in range(5)]
    (sessions_dir(project, home) / "9_broken.jsonl").write_text("not a header\n")
    newest_first = list(reversed(paths))
    assert [i.path for i in list_sessions(project, home)] == newest_first
    assert [i.path for i in list_sessions(project, home, limit=2)] == newest_first[:2]
    assert [i.path for i in list_sessions(project, home, limit=2, offset=2)] == newest_first[2:4]
    assert [i.path for i in list_sessions(project, home, limit=9, offset=4)] == newest_first[4:]
    assert list_sessions(project, home, limit=2, offset=5) == []


def test_find_session_by_id_or_unique_prefix(project: Path, home: Path) -> None:
    a = write_session(project, home, "3fa2c1d0", 1001)
    b = write_session(project, home, "3f09bb12", 1002)
    c = write_session(project, home, "77aa0000", 1003)
    assert find_session(project, "3fa2c1d0", home).path == a
    assert find_session(project, "3fa", home).path == a
    assert find_session(project, "3F0", home).path == b
    assert find_session(project, "7", home).path == c
    with pytest.raises(SessionNotFound) as ambiguous:
        find_session(project, "3f", home)
    message = str(ambiguous.value)
    assert "'3f' names 2 sessions" in message and "give more of the id" in message
    assert f"3fa2c1d0 ({a})" in message and f"3f09bb12 ({b})" in message
    assert {info.path for info in ambiguous.value.candidates} == {a, b}
    for missing in ("3fb", "", "  "):
        with pytest.raises(SessionNotFound, match="has an id starting with") as none:
            find_session(project, missing, home)
        assert none.value.candidates == []


def test_an_exact_id_wins_over_a_longer_id_it_prefixes(project: Path, home: Path) -> None:
    short = write_session(project, home, "abc", 1001)
    write_session(project, home, "abcdef01", 1002)
    assert find_session(project, "abc", home).path == short
    with pytest.raises(SessionNotFound, match="names 2 sessions"):
        find_session(project, "ab", home)


def test_a_copied_session_file_makes_its_id_ambiguous(project: Path, home: Path) -> None:
    write_session(project, home, "deadbeef", 1001)
    write_session(project, home, "deadbeef", 1002)
    with pytest.raises(SessionNotFound, match="'deadbeef' names 2 sessions"):
        find_session(project, "deadbeef", home)
