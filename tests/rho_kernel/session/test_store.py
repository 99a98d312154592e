"""`Session` against real files: appends, resume, unreadable lines, branching, resolutions."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import (
    ATTACHED,
    FULL,
    PINNED,
    Compacted,
    CompactionPayload,
    CompactionSummary,
    CustomPayload,
    Entry,
    LeafMovedPayload,
    ModelChangePayload,
    Outlined,
    Session,
    SessionEndedPayload,
    SessionError,
    Summarized,
)
from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.entries import render_entry


@pytest.fixture
def session(project: Path, home: Path) -> Iterator[Session]:
    with Session.create(project, home=home) as created:
        yield created


def file_lines(path: Path | None) -> list[dict]:
    assert path is not None
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def reopen(session: Session, warnings: list[str] | None = None) -> Session:
    assert session.path is not None
    session.close()
    sink = warnings if warnings is not None else []
    return Session.open(session.path, on_warning=sink.append)


def rendered_from_scratch(session: Session) -> list[ChatMessage]:
    """path_messages computed without any cache: walk parent links from the leaf."""
    chain: list[Entry] = []
    current = session.leaf_id
    while current is not None:
        entry = session.entries[current]
        chain.append(entry)
        current = entry.parent_id
    return [m for m in (render_entry(e) for e in reversed(chain)) if m is not None]


CALL = ToolCall(id="call_1", function=FunctionCall(name="read_file", arguments='{"path":"a.rs"}'))


# ── Creation and appending ────────────────────────────────────────────────────


def test_create_writes_nothing_until_an_entry_after_the_system_message(
    project: Path, home: Path, session: Session
) -> None:
    assert session.path is not None
    assert session.path.parent == sessions_dir(project, home)
    assert session.path.name == f"{session.header.created_at_secs}_{session.id}.jsonl"
    assert session.path.parent.is_dir() and not session.path.exists()
    system = session.append_message(ChatMessage.system("sys"))
    assert not session.path.exists() and not session.written
    user = session.append_message(ChatMessage.user("hi"))
    assert session.written
    header, *entries = file_lines(session.path)
    assert entries == [system.to_json(), user.to_json()]
    assert header == {
        "type": "Header",
        "id": session.id,
        "version": 2,
        "created_at_secs": session.header.created_at_secs,
        "cwd": str(project.resolve()),
        "parent_session": None,
    }
    assert session.cwd == str(project.resolve())
    assert session.leaf_id == user.id
    assert session.entry_count == 2


@pytest.mark.parametrize("how", ["end", "close"])
def test_a_session_with_only_its_system_message_leaves_no_file(
    project: Path, home: Path, how: str
) -> None:
    session = Session.create(project, home=home)
    session.append_message(ChatMessage.system("sys"))
    session.clear()
    if how == "end":
        session.end("transport EOF")
    else:
        session.close()
    assert session.closed and not session.written
    assert [path for path in home.rglob("*") if not path.is_dir()] == []


def test_the_first_other_entry_writes_header_and_held_lines_at_once(
    project: Path, home: Path
) -> None:
    with Session.create(project, home=home) as session:
        system = session.append_message(ChatMessage.system("sys"))
        change = session.append_payload(ModelChangePayload(model="m"))
        assert session.path is not None
        assert [line.get("id") for line in file_lines(session.path)] == [
            session.id,
            system.id,
            change.id,
        ]


def test_parent_session_is_recorded(project: Path, home: Path) -> None:
    with Session.create(project, home=home, parent_session="4b021d5d") as child:
        child.append_message(ChatMessage.user("hi"))
        assert file_lines(child.path)[0]["parent_session"] == "4b021d5d"


def test_each_append_is_on_disk_before_the_next(session: Session) -> None:
    session.append_message(ChatMessage.system("sys"))
    messages = [
        ChatMessage.user("read a.rs"),
        ChatMessage.assistant("", [CALL], "tool_calls"),
        ChatMessage.tool_result("call_1", "fn main() {}", False),
    ]
    for count, message in enumerate(messages, start=1):
        entry = session.append_message(message)
        assert session.path is not None
        with session.path.open("rb") as other_handle:
            raw = other_handle.read()
        assert raw.endswith(b"\n")
        lines = [json.loads(line) for line in raw.splitlines()]
        assert len(lines) == count + 2
        assert lines[-1] == entry.to_json()
    assert session.entry_count == 4


def test_appends_chain_to_the_leaf(session: Session) -> None:
    first = session.append_message(ChatMessage.system("sys"))
    second = session.append_message(ChatMessage.user("hi"))
    assert first.parent_id is None
    assert second.parent_id == first.id
    assert session.leaf_id == second.id
    assert [e.id for e in session.path_entries()] == [first.id, second.id]
    assert session.path_messages() == [ChatMessage.system("sys"), ChatMessage.user("hi")]


def test_entries_view_is_read_only(session: Session) -> None:
    entry = session.append_message(ChatMessage.user("hi"))
    assert session.entries[entry.id] == entry
    with pytest.raises(TypeError):
        session.entries["x"] = entry  # type: ignore[index]


def test_in_memory_session_writes_nothing(project: Path, home: Path, tmp_path: Path) -> None:
    before = sorted(tmp_path.rglob("*"))
    memory = Session.in_memory(project)
    memory.append_message(ChatMessage.system("sys"))
    user = memory.append_message(ChatMessage.user("hi"))
    memory.append_custom("acme.state.v1", {"n": 1})
    memory.set_resolution(user.id, PINNED)
    memory.branch_to(user.id)
    memory.clear()
    memory.end("done")
    assert memory.path is None
    assert memory.entry_count == 6
    assert sorted(tmp_path.rglob("*")) == before
    assert not home.exists()


def test_append_payload_uses_default_or_given_resolution(session: Session) -> None:
    change = session.append_payload(ModelChangePayload(model="gpt-4o"))
    pinned = session.append_payload(ModelChangePayload(model="o3"), PINNED)
    assert change.resolution == ATTACHED
    assert pinned.resolution == PINNED
    with pytest.raises(ValueError, match="branch_to"):
        session.append_payload(LeafMovedPayload(from_=None, to=change.id))


def test_tool_result_is_error_is_persisted_and_reloaded(session: Session) -> None:
    session.append_message(ChatMessage.tool_result("c1", "boom", True))
    session.append_message(ChatMessage.tool_result("c2", "ok", False))
    session.append_message(ChatMessage(role="tool", content="legacy", tool_call_id="c3"))
    payloads = [line["payload"]["Message"] for line in file_lines(session.path)[1:]]
    assert [p["is_error"] for p in payloads] == [True, False, False]
    with reopen(session) as resumed:
        assert [m.is_error for m in resumed.path_messages()] == [True, False, False]


# ── Custom entries ────────────────────────────────────────────────────────────


def test_custom_state_round_trips_and_latest_on_path_wins(session: Session) -> None:
    session.append_message(ChatMessage.system("sys"))
    first = session.append_custom("acme.todo.v1", {"items": ["a"]})
    assert first.resolution == ATTACHED
    assert isinstance(first.payload, CustomPayload)
    session.append_custom("acme.todo.v1", {"items": ["a", "b"]})
    session.append_custom("acme.other.v2", 7)
    assert session.read_custom("acme.todo.v1") == {"items": ["a", "b"]}
    assert session.read_custom("acme.todo.v2") is None
    assert session.path_messages() == [ChatMessage.system("sys")]
    with reopen(session) as resumed:
        assert resumed.read_custom("acme.todo.v1") == {"items": ["a", "b"]}
        resumed.branch_to(first.id)
        assert resumed.read_custom("acme.todo.v1") == {"items": ["a"]}
        assert resumed.read_custom("acme.other.v2") is None


@pytest.mark.parametrize(
    "kind", ["todo", "acme.todo", "acme.todo.1", "acme..v1", "acme.todo.v", ""]
)
def test_custom_kind_must_be_author_feature_version(session: Session, kind: str) -> None:
    with pytest.raises(ValueError, match="author"):
        session.append_custom(kind, {})
    assert session.entry_count == 0


def test_custom_data_must_be_json(project: Path, session: Session) -> None:
    with pytest.raises((TypeError, ValueError)):
        session.append_custom("acme.todo.v1", {1, 2})
    with pytest.raises((TypeError, ValueError)):
        Session.in_memory(project).append_custom("acme.todo.v1", object())
    assert session.entry_count == 0
    assert session.path is not None and not session.path.exists()
    session.append_custom("acme.todo.v1", [1])
    assert len(file_lines(session.path)) == 2


# ── Resume ────────────────────────────────────────────────────────────────────


def test_resume_rebuilds_tree_and_leaf_and_appends_continue(session: Session) -> None:
    system = session.append_message(ChatMessage.system("sys"))
    user = session.append_message(ChatMessage.user("fix the bug"))
    assistant = session.append_message(ChatMessage.assistant("done", finish_reason="stop"))
    expected = session.path_messages()
    with reopen(session) as resumed:
        assert resumed.id == session.id
        assert resumed.header == session.header
        assert resumed.leaf_id == assistant.id
        assert dict(resumed.entries) == dict(session.entries)
        assert resumed.path_messages() == expected
        follow_up = resumed.append_message(ChatMessage.user("thanks"))
        assert follow_up.parent_id == assistant.id
    with reopen(resumed) as again:
        assert [e.id for e in again.path_entries()] == [
            system.id,
            user.id,
            assistant.id,
            follow_up.id,
        ]


def test_book_example_file_opens(tmp_path: Path) -> None:
    path = tmp_path / "1777859536_4b021d5d.jsonl"
    ts = '{"secs_since_epoch":1777859536,"nanos_since_epoch":0}'
    path.write_text(
        '{"type":"Header","id":"4b021d5d","version":1,"created_at_secs":1777859536,"cwd":"/home/user/project","parent_session":null}\n'
        f'{{"type":"Entry","id":"a1b2c3d4","parent_id":null,"timestamp":{ts},"resolution":"Full","payload":{{"Message":{{"content":"you are a coding assistant","role":"system"}}}}}}\n'
        f'{{"type":"Entry","id":"e5f6a7b8","parent_id":"a1b2c3d4","timestamp":{ts},"resolution":"Full","payload":{{"Message":{{"content":"fix the bug","role":"user"}}}}}}\n',
        encoding="utf-8",
    )
    with Session.open(path) as session:
        assert session.id == "4b021d5d"
        assert session.header.version == 1
        assert session.cwd == "/home/user/project"
        assert session.leaf_id == "e5f6a7b8"
        assert session.path_messages() == [
            ChatMessage.system("you are a coding assistant"),
            ChatMessage.user("fix the bug"),
        ]


def write_session(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


HEADER = '{"type":"Header","id":"0000abcd","version":2,"created_at_secs":1,"cwd":"/p","parent_session":null}'


def entry(entry_id: str, parent: str | None, text: str, role: str = "user") -> str:
    return json.dumps(
        {
            "type": "Entry",
            "id": entry_id,
            "parent_id": parent,
            "timestamp": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
            "resolution": "Full",
            "payload": {"Message": {"role": role, "content": text}},
        }
    )


def test_version_three_header_is_rejected(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s.jsonl", HEADER.replace('"version":2', '"version":3'))
    with pytest.raises(SessionError, match="version 3") as error:
        Session.open(path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    "first_line",
    [entry("aaaaaaaa", None, "hi"), "{torn", '{"type":"Header"}'],
)
def test_header_must_be_the_first_line(tmp_path: Path, first_line: str) -> None:
    path = write_session(tmp_path / "s.jsonl", first_line, HEADER)
    with pytest.raises(SessionError, match="line 1") as error:
        Session.open(path)
    assert str(path) in str(error.value)


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = write_session(tmp_path / "s.jsonl", "", "  ")
    with pytest.raises(SessionError, match="no header"):
        Session.open(path)
    with pytest.raises(SessionError, match="cannot read"):
        Session.open(tmp_path / "missing.jsonl")


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        "",
        HEADER,
        "",
        entry("aaaaaaaa", None, "a"),
        "   ",
        entry("bbbbbbbb", "aaaaaaaa", "b"),
        "",
    )
    with Session.open(path) as session:
        assert session.leaf_id == "bbbbbbbb"
        assert session.entry_count == 2


def test_duplicate_ids_first_wins(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        entry("aaaaaaaa", None, "first"),
        entry("aaaaaaaa", None, "second"),
        entry("bbbbbbbb", "aaaaaaaa", "child"),
    )
    with Session.open(path) as session:
        assert session.entry_count == 2
        assert [m.text for m in session.path_messages()] == ["first", "child"]


def unknown_role(entry_id: str, parent: str | None) -> str:
    """An entry line this version cannot read: a message role from a newer rho."""
    return entry(entry_id, parent, "from the future", role="developer")


def open_and_append(path: Path, warnings: list[str]) -> Entry:
    with Session.open(path, on_warning=warnings.append) as session:
        return session.append_message(ChatMessage.user("later"))


def test_unreadable_middle_line_is_skipped_kept_and_passed_over(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        entry("aaaaaaaa", None, "sys", role="system"),
        unknown_role("bbbbbbbb", "aaaaaaaa"),
        entry("cccccccc", "bbbbbbbb", "after"),
    )
    before = path.read_bytes()
    warnings: list[str] = []
    added = open_and_append(path, warnings)
    assert path.read_bytes().startswith(before)
    assert added.parent_id == "cccccccc"
    [warning] = warnings
    assert str(path) in warning and "skipped 1 unreadable line" in warning
    assert "line 3" in warning
    with Session.open(path, on_warning=warnings.append) as again:
        assert again.leaf_id == added.id
        assert [m.text for m in again.path_messages()] == ["sys", "after", "later"]
        assert "bbbbbbbb" not in again.entries
    assert len(warnings) == 2


def test_unreadable_last_line_is_kept_and_new_entries_attach_to_it(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        entry("aaaaaaaa", None, "sys", role="system"),
        entry("bbbbbbbb", "aaaaaaaa", "question"),
        unknown_role("cccccccc", "bbbbbbbb"),
    )
    before = path.read_bytes()
    warnings: list[str] = []
    with Session.open(path, on_warning=warnings.append) as session:
        assert session.leaf_id == "cccccccc"
        assert [m.text for m in session.path_messages()] == ["sys", "question"]
        added = session.append_message(ChatMessage.user("later"))
        following = session.append_message(ChatMessage.assistant("answer"))
    after = path.read_bytes()
    assert after.startswith(before)
    assert [json.loads(line)["id"] for line in after[len(before) :].splitlines()] == [
        added.id,
        following.id,
    ]
    assert added.parent_id == "cccccccc"
    assert "line 4" in warnings[0]
    with Session.open(path, on_warning=warnings.append) as again:
        assert [m.text for m in again.path_messages()] == ["sys", "question", "later", "answer"]


def test_several_unreadable_lines_give_one_warning_with_count_and_first_line(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        entry("aaaaaaaa", None, "a"),
        "not json",
        '{"type":"Resolution","entry":"aaaaaaaa","resolution":{"Outlined":{}},"cursor":null}',
        "[1, 2]",
        entry("bbbbbbbb", "aaaaaaaa", "b"),
    )
    warnings: list[str] = []
    with Session.open(path, on_warning=warnings.append) as session:
        assert [m.text for m in session.path_messages()] == ["a", "b"]
    [warning] = warnings
    assert "skipped 3 unreadable lines" in warning and "first: line 3" in warning


def test_entries_after_a_line_without_an_id_continue_from_the_entry_before(
    tmp_path: Path,
) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        entry("aaaaaaaa", None, "a"),
        '{"type":"Entry","id":"bbbbbbbb","parent_id":"aaaa',  # terminated, but cut short
        entry("cccccccc", "bbbbbbbb", "c"),
    )
    with Session.open(path, on_warning=lambda _: None) as session:
        assert session.leaf_id == "cccccccc"
        assert [m.text for m in session.path_messages()] == ["a", "c"]
        assert session.entry_count == 2


def test_gap_cycles_and_self_parents_do_not_hang(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        unknown_role("aaaaaaaa", "bbbbbbbb"),
        unknown_role("bbbbbbbb", "aaaaaaaa"),
        entry("cccccccc", "aaaaaaaa", "c"),
        unknown_role("dddddddd", "dddddddd"),
    )
    with Session.open(path, on_warning=lambda _: None) as session:
        assert session.leaf_id == "dddddddd"
        assert [m.text for m in session.path_messages()] == ["c"]  # d continues from c
        session.branch_to("cccccccc")
        assert [m.text for m in session.path_messages()] == ["c"]


def test_default_warning_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER.encode() + b"\n" + entry("aaaaaaaa", None, "a").encode() + b"\n{oops")
    with Session.open(path):
        pass
    err = capsys.readouterr().err
    assert err.startswith("rho: warning: ") and str(path) in err
    assert err.count("\n") == 1


def test_missing_final_newline_is_added_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER.encode() + b"\n" + entry("aaaaaaaa", None, "a").encode())
    with Session.open(path) as session:
        added = session.append_message(ChatMessage.user("b"))
    with Session.open(path) as again:
        assert again.entry_count == 2
        assert again.leaf_id == added.id
        assert added.parent_id == "aaaaaaaa"


def test_closed_session_rejects_changes(session: Session) -> None:
    user = session.append_message(ChatMessage.user("hi"))
    session.close()
    session.close()
    assert session.closed
    with pytest.raises(SessionError, match="closed"):
        session.append_message(ChatMessage.user("more"))
    with pytest.raises(SessionError, match="closed"):
        session.set_resolution(user.id, PINNED)
    assert session.path_messages() == [ChatMessage.user("hi")]


def test_end_appends_session_ended_and_is_idempotent(session: Session) -> None:
    session.append_message(ChatMessage.user("hi"))
    session.end("transport EOF")
    session.end("again")
    assert session.closed
    lines = file_lines(session.path)
    assert lines[-1]["payload"] == {"SessionEnded": {"reason": "transport EOF"}}
    assert lines[-1]["resolution"] == "Attached"
    assert sum("SessionEnded" in line["payload"] for line in lines[1:]) == 1
    assert session.path is not None
    with Session.open(session.path) as resumed:
        assert isinstance(resumed.entries[resumed.leaf_id or ""].payload, SessionEndedPayload)
        assert resumed.path_messages() == [ChatMessage.user("hi")]


# ── Branching ─────────────────────────────────────────────────────────────────


def test_clear_branches_to_the_system_entry_and_keeps_the_old_branch(session: Session) -> None:
    system = session.append_message(ChatMessage.system("sys"))
    old_user = session.append_message(ChatMessage.user("old task"))
    old_reply = session.append_message(ChatMessage.assistant("old answer"))
    session.clear()
    assert session.leaf_id == system.id
    assert session.path_messages() == [ChatMessage.system("sys")]
    new_user = session.append_message(ChatMessage.user("new task"))
    assert new_user.parent_id == system.id
    ids_on_disk = {line.get("id") for line in file_lines(session.path)}
    assert {old_user.id, old_reply.id} <= ids_on_disk
    with reopen(session) as resumed:
        assert resumed.path_messages() == [ChatMessage.system("sys"), ChatMessage.user("new task")]
        assert old_reply.id in resumed.entries
        resumed.branch_to(old_reply.id)
        assert [m.text for m in resumed.path_messages()] == ["sys", "old task", "old answer"]


def test_clear_without_a_system_root_empties_the_path(session: Session) -> None:
    session.append_message(ChatMessage.user("no system prompt"))
    session.clear()
    assert session.leaf_id is None
    assert session.path_messages() == []
    fresh = session.append_message(ChatMessage.user("fresh"))
    assert fresh.parent_id is None


def test_branch_to_unknown_id_is_an_error(session: Session) -> None:
    with pytest.raises(SessionError, match="unknown entry"):
        session.branch_to("ffffffff")
    with pytest.raises(SessionError, match="unknown entry"):
        session.set_resolution("ffffffff", PINNED)


def test_branch_to_survives_resume(session: Session) -> None:
    system = session.append_message(ChatMessage.system("sys"))
    first = session.append_message(ChatMessage.user("one"))
    session.append_message(ChatMessage.user("two"))
    session.branch_to(first.id)
    moved = file_lines(session.path)[-1]
    assert moved["payload"]["LeafMoved"]["to"] == first.id
    assert moved["resolution"] == "Attached"
    with reopen(session) as resumed:
        assert resumed.leaf_id == first.id
        assert [m.text for m in resumed.path_messages()] == ["sys", "one"]
        branch = resumed.append_message(ChatMessage.user("two, differently"))
        assert branch.parent_id == first.id
    with reopen(resumed) as again:
        assert again.leaf_id == branch.id
        assert [e.id for e in again.path_entries()] == [system.id, first.id, branch.id]


def test_branch_to_the_leaf_writes_nothing(session: Session) -> None:
    user = session.append_message(ChatMessage.user("one"))
    session.branch_to(user.id)
    assert len(file_lines(session.path)) == 2


# ── Resolutions ───────────────────────────────────────────────────────────────


def test_set_resolution_writes_a_line_and_replays_last_wins(session: Session) -> None:
    session.append_message(ChatMessage.system("sys"))
    user = session.append_message(ChatMessage.user("read a.rs"))
    session.append_message(ChatMessage.assistant("", [CALL], "tool_calls"))
    tool = session.append_message(ChatMessage.tool_result("call_1", "x" * 500, False))
    session.set_resolution(tool.id, Outlined(outline="read_file: a.rs (1 lines)"))
    session.set_resolution(tool.id, Summarized(summary="read a.rs"))
    session.set_resolution(user.id, PINNED)
    lines = file_lines(session.path)
    assert lines[-3:] == [
        {
            "type": "Resolution",
            "entry": tool.id,
            "resolution": {"Outlined": {"outline": "read_file: a.rs (1 lines)"}},
            "cursor": None,
        },
        {
            "type": "Resolution",
            "entry": tool.id,
            "resolution": {"Summarized": {"summary": "read a.rs"}},
            "cursor": None,
        },
        {"type": "Resolution", "entry": user.id, "resolution": "Pinned", "cursor": None},
    ]
    live = session.path_messages()
    assert live[-1] == ChatMessage.tool_result("call_1", "read a.rs", False)
    with reopen(session) as resumed:
        assert resumed.entries[tool.id].resolution == Summarized(summary="read a.rs")
        assert resumed.entries[user.id].resolution == PINNED
        assert resumed.path_messages() == live


def test_resolution_line_before_its_entry_is_ignored(tmp_path: Path) -> None:
    path = write_session(
        tmp_path / "s.jsonl",
        HEADER,
        '{"type":"Resolution","entry":"aaaaaaaa","resolution":"Attached","cursor":null}',
        entry("aaaaaaaa", None, "a"),
    )
    with Session.open(path) as session:
        assert session.entries["aaaaaaaa"].resolution == FULL


def test_compaction_hides_compacted_entries(session: Session) -> None:
    session.append_message(ChatMessage.system("sys"))
    old = session.append_message(ChatMessage.user("fix the bug"))
    reply = session.append_message(ChatMessage.assistant("looking"))
    summary = CompactionSummary(original_request="fix the bug", tokens_compacted=40, entry_count=2)
    compaction = session.append_payload(
        CompactionPayload(summary=summary, first_kept=reply.id, tokens_before=40)
    )
    for entry_id in (old.id, reply.id):
        session.set_resolution(entry_id, Compacted(into=compaction.id))
    texts = [m.text for m in session.path_messages()]
    assert texts == ["sys", '[Compacted: 2 entries, 40 tokens]\nInitial request: "fix the bug"']
    with reopen(session) as resumed:
        assert [m.text for m in resumed.path_messages()] == texts


# ── Cache correctness ─────────────────────────────────────────────────────────


def test_path_messages_cache_tracks_appends_branches_and_resolutions(session: Session) -> None:
    system = session.append_message(ChatMessage.system("sys"))
    assert session.path_messages() == rendered_from_scratch(session)
    user = session.append_message(ChatMessage.user("one"))
    session.append_payload(ModelChangePayload(model="m"))
    reply = session.append_message(ChatMessage.assistant("two"))
    assert session.path_messages() == rendered_from_scratch(session)
    session.set_resolution(reply.id, ATTACHED)
    assert session.path_messages() == rendered_from_scratch(session)
    session.set_resolution(user.id, Outlined(outline="short"))
    assert session.path_messages() == rendered_from_scratch(session)
    session.branch_to(system.id)
    assert session.path_messages() == rendered_from_scratch(session) == [ChatMessage.system("sys")]
    session.append_message(ChatMessage.user("three"))
    assert session.path_messages() == rendered_from_scratch(session)
    session.branch_to(reply.id)
    session.append_message(ChatMessage.user("four"))
    assert session.path_messages() == rendered_from_scratch(session)
    assert [m.text for m in session.path_messages()] == ["sys", "short", "four"]


def test_path_messages_returns_a_fresh_list(session: Session) -> None:
    session.append_message(ChatMessage.user("one"))
    messages = session.path_messages()
    messages.clear()
    assert session.path_messages() == [ChatMessage.user("one")]


# ── Property: reopening reproduces the live session ───────────────────────────

OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.text(max_size=8)),
        st.tuples(st.just("assistant"), st.text(max_size=8)),
        st.tuples(st.just("tool"), st.booleans()),
        st.tuples(st.just("custom"), st.integers()),
        st.tuples(st.just("branch"), st.integers(min_value=0)),
        st.tuples(st.just("resolution"), st.integers(min_value=0)),
        st.tuples(st.just("clear"), st.none()),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_reopening_reproduces_path_messages(operations: list[tuple[str, object]]) -> None:
    resolutions = [ATTACHED, PINNED, Outlined(outline="o"), Summarized(summary="s"), FULL]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        with Session.create(project, home=Path(tmp) / "home") as live:
            live.append_message(ChatMessage.system("sys"))
            live.append_message(ChatMessage.user("start"))
            for step, (op, arg) in enumerate(operations):
                ids = list(live.entries)
                if op == "user":
                    live.append_message(ChatMessage.user(str(arg)))
                elif op == "assistant":
                    live.append_message(ChatMessage.assistant(str(arg), [CALL]))
                elif op == "tool":
                    live.append_message(ChatMessage.tool_result("call_1", "out", bool(arg)))
                elif op == "custom":
                    live.append_custom("test.counter.v1", arg)
                elif op == "branch":
                    live.branch_to(ids[int(arg) % len(ids)])  # type: ignore[call-overload]
                elif op == "resolution":
                    target = ids[int(arg) % len(ids)]  # type: ignore[call-overload]
                    live.set_resolution(target, resolutions[step % len(resolutions)])
                else:
                    live.clear()
                assert live.path_messages() == rendered_from_scratch(live)
            assert live.path is not None
            path = live.path
            expected = live.path_messages()
            leaf = live.leaf_id
            entries = dict(live.entries)
            custom = live.read_custom("test.counter.v1")
        with Session.open(path, on_warning=pytest.fail) as resumed:
            assert resumed.leaf_id == leaf
            assert dict(resumed.entries) == entries
            assert resumed.path_messages() == expected
            assert resumed.read_custom("test.counter.v1") == custom


# ── Open tool calls ───────────────────────────────────────────────────────────


def calls(*ids: str) -> list[ToolCall]:
    return [ToolCall(id=i, function=FunctionCall(name="write_file", arguments="{}")) for i in ids]


def test_open_tool_calls_of_the_last_assistant_message_are_closed(session: Session) -> None:
    session.append_message(ChatMessage.system("sys"))
    session.append_message(ChatMessage.assistant("", calls("old"), "tool_calls"))
    session.append_message(ChatMessage.user("next"))
    session.append_message(ChatMessage.assistant("", calls("a", "b", "c"), "tool_calls"))
    session.append_message(ChatMessage.tool_result("b", "done", False))
    session.append_payload(ModelChangePayload(model="m"))
    assert session.close_open_tool_calls() == 2
    added = session.path_messages()[-2:]
    assert added == [
        ChatMessage.tool_result("a", "Tool call cancelled.", True),
        ChatMessage.tool_result("c", "Tool call cancelled.", True),
    ]
    assert session.close_open_tool_calls("other text") == 0
    with reopen(session) as resumed:
        assert resumed.path_messages()[-2:] == added


@pytest.mark.parametrize(
    "messages",
    [
        [],
        [ChatMessage.system("sys"), ChatMessage.user("hi")],
        [ChatMessage.user("hi"), ChatMessage.assistant("hello", finish_reason="stop")],
        [ChatMessage.assistant("", calls("a")), ChatMessage.tool_result("a", "ok", False)],
    ],
)
def test_nothing_to_close_adds_nothing(project: Path, messages: list[ChatMessage]) -> None:
    memory = Session.in_memory(project)
    for message in messages:
        memory.append_message(message)
    assert memory.close_open_tool_calls() == 0
    assert memory.entry_count == len(messages)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_only_regular_files_are_opened(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "s.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    with pytest.raises(SessionError, match="cannot read session file"):
        Session.open(path)
