"""The tree of a session: labels, pages of nodes, branch summaries and forks, on real files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import (
    BranchSummaryPayload,
    LabelPayload,
    LeafMovedPayload,
    Outlined,
    Session,
    SessionError,
    summarize_branch,
    tree_page,
)
from rho_kernel.session.tree import MAX_PAGE, one_line, preview


@pytest.fixture
def session(project: Path, home: Path) -> Iterator[Session]:
    with Session.create(project, home=home) as created:
        yield created


def converse(session: Session) -> dict[str, str]:
    """system, user, a read_file round, a reply; returns the ids by name."""
    ids = {"system": session.append_message(ChatMessage.system("You are rho.")).id}
    ids["ask"] = session.append_message(ChatMessage.user("Fix   the\nbug")).id
    call = ToolCall(id="c1", function=FunctionCall(name="read_file", arguments='{"path":"a.py"}'))
    ids["call"] = session.append_message(ChatMessage.assistant("", [call])).id
    ids["result"] = session.append_message(ChatMessage.tool_result("c1", "x = 1\n", False)).id
    ids["reply"] = session.append_message(ChatMessage.assistant("Fixed it.")).id
    return ids


def reopened(session: Session) -> Session:
    assert session.path is not None
    session.close()
    return Session.open(session.path)


# ── labels ──────────────────────────────────────────────────────────────────


def test_labels_are_set_replaced_removed_and_survive_a_resume(session: Session) -> None:
    ids = converse(session)
    session.set_label(ids["ask"], "  the bug  ")
    session.set_label(ids["call"], "read")
    session.set_label(ids["call"], "read again")
    session.set_label(ids["reply"], "done")
    session.set_label(ids["reply"], None)
    assert dict(session.labels) == {ids["ask"]: "the bug", ids["call"]: "read again"}
    assert [m.text for m in session.path_messages()][-1] == "Fixed it."  # labels render nothing
    with reopened(session) as again:
        assert dict(again.labels) == {ids["ask"]: "the bug", ids["call"]: "read again"}
        assert isinstance(again.entries[again.leaf_id or ""].payload, LabelPayload)


def test_label_of_unknown_entry_is_refused(session: Session) -> None:
    converse(session)
    with pytest.raises(SessionError, match="unknown entry id"):
        session.set_label("nope", "x")


# ── pages ───────────────────────────────────────────────────────────────────


def test_tree_page_shows_every_entry_with_parent_kind_preview_and_path(session: Session) -> None:
    ids = converse(session)
    session.set_label(ids["ask"], "start")
    session.branch_to(ids["ask"])
    side = session.append_message(ChatMessage.user("another way")).id
    session.set_resolution(ids["result"], Outlined(outline="read_file: a.py (1 lines)"))
    page = tree_page(session)
    nodes = {node.id: node for node in page.nodes}
    assert page.total == session.entry_count == len(page.nodes) and page.next_offset is None
    assert page.leaf_id == side
    assert nodes[ids["ask"]].preview == "Fix the bug" and nodes[ids["ask"]].label == "start"
    assert nodes[ids["call"]].preview == '→ read_file({"path":"a.py"})'
    assert nodes[ids["call"]].role == "assistant" and nodes[ids["call"]].kind == "message"
    assert nodes[ids["result"]].resolution == "outlined"
    assert nodes[ids["system"]].parent_id is None
    assert nodes[side].parent_id == ids["ask"]
    assert [n.id for n in page.nodes if n.on_path] == [ids["system"], ids["ask"], side]
    kinds = [node.kind for node in page.nodes]
    assert kinds.count("label") == 1 and kinds.count("leafMoved") == 1
    moved = next(node for node in page.nodes if node.kind == "leafMoved")
    assert moved.resolution == "attached" and ids["ask"] in moved.preview


def test_tree_pages_are_bounded_and_stable(session: Session) -> None:
    session.append_message(ChatMessage.system("s"))
    for index in range(30):
        session.append_message(ChatMessage.user(f"message {index} " + "word " * 500))
    first = tree_page(session, 0, 10)
    assert [len(first.nodes), first.offset, first.next_offset] == [10, 0, 10]
    assert all(len(node.preview) <= 120 for node in first.nodes)
    last = tree_page(session, 30, 10)
    assert len(last.nodes) == 1 and last.next_offset is None
    assert tree_page(session, 99, 10).nodes == []
    assert len(tree_page(session, 0, 10**9).nodes) == min(31, MAX_PAGE)
    session.append_message(ChatMessage.user("new"))
    assert [n.id for n in tree_page(session, 0, 10).nodes] == [n.id for n in first.nodes]


def test_previews_are_one_scrubbed_line() -> None:
    assert one_line("a\n\tb\ud800c", 120) == "a b\ufffdc"
    assert one_line("x" * 10_000, 20) == "x" * 19 + "…"
    assert one_line(" " * 10_000 + "tail", 20) == "…"


def test_preview_of_a_huge_message_reads_only_its_start(session: Session) -> None:
    entry = session.append_message(ChatMessage.user("y" * 5_000_000))
    assert preview(entry) == "y" * 119 + "…"


# ── branching with a summary ────────────────────────────────────────────────


def test_abandoned_by_is_the_old_path_past_the_common_ancestor(session: Session) -> None:
    ids = converse(session)
    assert [e.id for e in session.abandoned_by(ids["ask"])] == [
        ids["call"],
        ids["result"],
        ids["reply"],
    ]
    assert session.abandoned_by(ids["reply"]) == []
    session.branch_to(ids["ask"])
    other = session.append_message(ChatMessage.user("b")).id
    assert [e.id for e in session.abandoned_by(ids["reply"])] == [other]


def test_branch_with_summary_records_leaf_move_and_summary(session: Session) -> None:
    ids = converse(session)
    abandoned = session.abandoned_by(ids["ask"])
    summary = summarize_branch(abandoned, "Tried reading a.py first.")
    written = session.branch_with_summary(ids["ask"], summary)
    assert session.leaf_id == written.id and written.parent_id == ids["ask"]
    payload = written.payload
    assert isinstance(payload, BranchSummaryPayload) and payload.from_id == ids["reply"]
    assert payload.summary.entry_count == 3
    assert payload.summary.tool_calls == {"read_file": ['{"path":"a.py"}']}
    assert payload.summary.key_findings == {"read_file": ["x = 1"]}
    assert "Tried reading a.py first." in (payload.summary.notes or "")
    messages = session.path_messages()
    assert [m.role for m in messages] == ["system", "user", "user"]
    assert "Abandoned branch of 3 entries" in messages[-1].text
    with reopened(session) as again:
        assert again.leaf_id == written.id
        moved = [e for e in again.entries.values() if isinstance(e.payload, LeafMovedPayload)]
        assert len(moved) == 1 and moved[0].payload.to == ids["ask"]  # type: ignore[union-attr]
        assert [m.text for m in again.path_messages()] == [m.text for m in messages]


def test_summary_of_a_long_branch_is_bounded(session: Session) -> None:
    session.append_message(ChatMessage.system("s"))
    start = session.append_message(ChatMessage.user("u" * 10_000)).id
    for index in range(200):
        call = ToolCall(id=f"c{index}", function=FunctionCall(name="grep", arguments="a" * 5000))
        session.append_message(ChatMessage.assistant("", [call]))
        session.append_message(ChatMessage.tool_result(f"c{index}", "r" * 5000, index % 2 == 0))
    summary = summarize_branch(session.abandoned_by(start))
    assert len(summary.tool_calls["grep"]) == 10
    assert all(len(text) <= 80 for text in summary.tool_calls["grep"])
    assert summary.key_findings["grep"][0].startswith("error: ")
    assert "grep ×10 and 190 more" in (summary.notes or "")
    assert len(json.dumps(summary.to_json())) < 5_000


# ── forks ───────────────────────────────────────────────────────────────────


def test_fork_copies_the_path_and_names_its_parent(session: Session) -> None:
    ids = converse(session)
    session.branch_to(ids["ask"])
    session.append_message(ChatMessage.user("side branch"))
    with session.fork(ids["result"]) as fork:
        assert fork.path is not None and fork.path.parent == session.path.parent  # type: ignore[union-attr]
        assert fork.header.parent_session == str(session.path)
        assert list(fork.entries) == [ids["system"], ids["ask"], ids["call"], ids["result"]]
        assert fork.leaf_id == ids["result"]
        fork.append_message(ChatMessage.user("continue in the fork"))
        fork_path = fork.path
    header = json.loads(fork_path.read_text().splitlines()[0])
    assert header["parent_session"] == str(session.path) and header["id"] != session.id
    with Session.open(fork_path) as again:
        assert [m.text for m in again.path_messages()][-2:] == ["x = 1\n", "continue in the fork"]
    assert session.leaf_id not in (None, ids["result"])  # the parent is unchanged


def test_fork_of_an_in_memory_session_names_it_by_id(project: Path) -> None:
    memory = Session.in_memory(project)
    converse(memory)
    fork = memory.fork()
    assert fork.path is None and fork.header.parent_session == memory.id
    assert [m.text for m in fork.path_messages()] == [m.text for m in memory.path_messages()]


def test_fork_of_unknown_entry_is_refused(session: Session) -> None:
    converse(session)
    with pytest.raises(SessionError):
        session.fork("nothere")
