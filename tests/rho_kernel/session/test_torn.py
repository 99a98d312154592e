"""A torn last line (a crash mid-write) is moved to a side file before the next append."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import Session
from rho_kernel.session import torn as torn_module

HEADER = b'{"type":"Header","id":"0000abcd","version":2,"created_at_secs":1,"cwd":"/p","parent_session":null}'


def entry(entry_id: str, parent: str | None, text: str) -> bytes:
    return json.dumps(
        {
            "type": "Entry",
            "id": entry_id,
            "parent_id": parent,
            "timestamp": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
            "resolution": "Full",
            "payload": {"Message": {"role": "user", "content": text}},
        }
    ).encode()


COMPLETE = HEADER + b"\n" + entry("aaaaaaaa", None, "a") + b"\n"


@pytest.fixture
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(torn_module.time, "time", lambda: 1234.5)
    return 1234


def side_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".torn-*"))


def every_line_is_json(data: bytes) -> None:
    assert data.endswith(b"\n")
    for line in data.splitlines():
        if line.strip():
            json.loads(line)


@pytest.mark.parametrize(
    "fragment",
    [b'{"type":"Entry","id":"deadbeef","parent_id":"', b'{"type":"En', b"{", b"\xff\xfe garbage"],
)
def test_the_fragment_moves_to_a_side_file_and_the_file_stays_valid(
    tmp_path: Path, fragment: bytes, fixed_time: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + fragment)
    warnings: list[str] = []
    with Session.open(path, on_warning=warnings.append) as session:
        assert "unfinished write" in warnings[0] and "side file" in warnings[0]
        assert path.read_bytes() == COMPLETE + fragment  # nothing changes before a write
        reply = session.append_message(ChatMessage.assistant("b"))
    data = path.read_bytes()
    assert data.startswith(COMPLETE)
    assert json.loads(data[len(COMPLETE) :])["id"] == reply.id  # one line: the new entry
    every_line_is_json(data)
    [side] = side_files(path)
    assert side.name == f"s.jsonl.torn-{fixed_time}"
    assert side.read_bytes() == fragment
    assert stat.S_IMODE(side.stat().st_mode) == 0o600
    warnings.clear()
    with Session.open(path, on_warning=warnings.append) as again:
        assert warnings == []
        assert again.leaf_id == reply.id and reply.parent_id == "aaaaaaaa"


def test_a_fragment_right_after_the_header(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER + b'\n\n{"type":"En')
    with Session.open(path, on_warning=lambda _: None) as session:
        assert session.leaf_id is None
        first = session.append_message(ChatMessage.user("a"))
    data = path.read_bytes()
    assert data.startswith(HEADER + b"\n\n{") and b'{"type":"En\n' not in data
    assert json.loads(data[len(HEADER) + 2 :])["id"] == first.id
    every_line_is_json(data)
    assert [side.read_bytes() for side in side_files(path)] == [b'{"type":"En']
    with Session.open(path, on_warning=pytest.fail) as again:
        assert again.leaf_id == first.id


@pytest.mark.parametrize(
    "last",
    [
        entry("bbbbbbbb", "aaaaaaaa", "b"),  # readable: an entry of the session
        b'{"type":"Entry","id":"cccccccc","parent_id":"aaaaaaaa","payload":{"Wizard":1}}',
        b'["complete", "json"]',
    ],
)
def test_a_complete_last_line_without_newline_stays(tmp_path: Path, last: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + last)
    with Session.open(path, on_warning=lambda _: None) as session:
        added = session.append_message(ChatMessage.user("c"))
    data = path.read_bytes()
    assert data.startswith(COMPLETE + last + b"\n")
    every_line_is_json(data)
    assert side_files(path) == []
    with Session.open(path, on_warning=lambda _: None) as again:
        assert added.id in again.entries


def test_a_taken_side_file_name_or_a_planted_link_is_never_written(
    tmp_path: Path, fixed_time: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + b"{torn")
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    (tmp_path / f"s.jsonl.torn-{fixed_time}").symlink_to(victim)
    (tmp_path / f"s.jsonl.torn-{fixed_time}-2").write_bytes(b"earlier")
    with Session.open(path, on_warning=lambda _: None) as session:
        session.append_message(ChatMessage.user("b"))
    assert victim.read_bytes() == b"keep"
    assert (tmp_path / f"s.jsonl.torn-{fixed_time}-2").read_bytes() == b"earlier"
    assert (tmp_path / f"s.jsonl.torn-{fixed_time}-3").read_bytes() == b"{torn"
    every_line_is_json(path.read_bytes())


def test_when_the_side_file_cannot_be_written_nothing_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + b"{torn")

    def refuse(_: Path) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(torn_module, "create_private_file", refuse)
    with Session.open(path, on_warning=lambda _: None) as session:
        added = session.append_message(ChatMessage.user("b"))
    data = path.read_bytes()
    assert data.startswith(COMPLETE + b"{torn\n")  # kept, and the entry on a line of its own
    assert "could not be moved aside" in capsys.readouterr().err
    with Session.open(path, on_warning=lambda _: None) as again:
        assert again.leaf_id == added.id


def test_a_file_that_changed_since_it_was_read_is_not_truncated(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + b"{torn")
    with Session.open(path, on_warning=lambda _: None) as session:
        with path.open("ab") as other:  # a writer that ignores the lock
            other.write(b'"more"}\n')
        session.append_message(ChatMessage.user("b"))
    data = path.read_bytes()
    assert data.startswith(COMPLETE + b'{torn"more"}\n')
    assert side_files(path) == []


def test_the_side_file_is_synced_before_the_session_is_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the two steps loses nothing: the truncation comes last."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(COMPLETE + b"{torn")
    steps: list[str] = []
    real_fsync, real_truncate = os.fsync, os.ftruncate

    def fsync(fd: int) -> None:
        steps.append("fsync")
        real_fsync(fd)

    def crash(fd: int, size: int) -> None:
        if size == 0:  # the lock file's
            real_truncate(fd, size)
            return
        steps.append("truncate")
        raise OSError(5, "crash")

    monkeypatch.setattr(torn_module.os, "fsync", fsync)
    monkeypatch.setattr(torn_module.os, "ftruncate", crash)
    with Session.open(path, on_warning=lambda _: None) as session:
        session.append_message(ChatMessage.user("b"))
    monkeypatch.setattr(torn_module.os, "ftruncate", real_truncate)
    assert steps[:2] == ["fsync", "fsync"] and steps[-1] == "truncate"  # file, folder, then cut
    assert [side.read_bytes() for side in side_files(path)] == [b"{torn"]
    assert path.read_bytes().startswith(COMPLETE + b"{torn\n")  # and still in the session
