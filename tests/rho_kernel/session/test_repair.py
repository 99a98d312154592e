"""Damaged trees resume without losing the system message or the path: cycles of any
length, entries whose parent is missing and lines repeating an id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import Session, tree_page

HEADER = {
    "type": "Header",
    "id": "0000beef",
    "version": 2,
    "created_at_secs": 1,
    "cwd": "/project",
    "parent_session": None,
}


def entry(entry_id: str, parent: str | None, text: str, role: str = "user") -> dict[str, Any]:
    return {
        "type": "Entry",
        "id": entry_id,
        "parent_id": parent,
        "timestamp": {"secs_since_epoch": 5, "nanos_since_epoch": 0},
        "resolution": "Full",
        "payload": {"Message": {"role": role, "content": text}},
    }


def conversation() -> list[dict[str, Any]]:
    """system → u1 → a1 → u2 → a2, as rho writes them."""
    return [
        entry("s", None, "sys", "system"),
        entry("u1", "s", "q1"),
        entry("a1", "u1", "r1", "assistant"),
        entry("u2", "a1", "q2"),
        entry("a2", "u2", "r2", "assistant"),
    ]


def load(tmp_path: Path, records: list[Any]) -> tuple[Session, list[str], Path]:
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(HEADER)] + [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    warnings: list[str] = []
    return Session.open(path, on_warning=warnings.append), warnings, path


def texts(session: Session) -> list[str]:
    return [message.text for message in session.path_messages()]


FULL = ["sys", "q1", "r1", "q2", "r2"]


def test_a_leaf_that_is_its_own_parent_keeps_the_system_message_and_the_path(
    tmp_path: Path,
) -> None:
    session, warnings, _ = load(tmp_path, [*conversation(), entry("x", "x", "q3")])
    with session:
        assert session.leaf_id == "x"
        assert texts(session) == [*FULL, "q3"]
        assert session.entries["x"].parent_id == "a2"
    [warning] = warnings
    assert "1 cycle of parents (cut at x)" in warning


@pytest.mark.parametrize("length", [2, 3, 7])
def test_a_cycle_of_any_length_at_the_leaf_keeps_the_path(tmp_path: Path, length: int) -> None:
    ids = [f"c{index}" for index in range(length)]
    cycle = [entry(ids[i], ids[i - 1], f"loop {i}") for i in range(length)]  # c0 → c{n-1}
    session, warnings, _ = load(tmp_path, [*conversation(), *cycle])
    with session:
        assert texts(session) == [*FULL, *(f"loop {i}" for i in range(length))]
        assert session.path_messages()[0].role == "system"
    [warning] = warnings
    assert "1 cycle of parents (cut at c0)" in warning


def test_a_cycle_through_the_system_message_keeps_it_at_the_root(tmp_path: Path) -> None:
    records = conversation()
    records[0] = entry("s", "a2", "sys", "system")  # the root names the last reply
    session, warnings, _ = load(tmp_path, records)
    with session:
        assert texts(session) == FULL
        assert session.entries["s"].parent_id is None
    assert "cut at s" in warnings[0]


def test_a_line_repeating_an_id_does_not_move_the_leaf(tmp_path: Path) -> None:
    repeated = entry("u1", "a2", "an appended line reusing u1")
    session, warnings, path = load(tmp_path, [*conversation(), repeated])
    with session:
        assert session.leaf_id == "a2"
        assert texts(session) == FULL
        assert session.entries["u1"].message.text == "q1"  # type: ignore[union-attr]
        appended = session.append_message(ChatMessage.user("q3"))
        assert appended.parent_id == "a2" and appended.id != "u1"
    [warning] = warnings
    assert "1 line repeating an earlier entry's id (first: line 7" in warning
    assert "an appended line reusing u1" in path.read_text()  # kept in the file


@pytest.mark.parametrize("target", ["s", "u1", "a1", "u2", "a2"])
def test_a_repeated_id_of_any_entry_is_ignored(tmp_path: Path, target: str) -> None:
    repeats = [entry(target, None, "dup one"), entry(target, target, "dup two")]
    session, warnings, _ = load(tmp_path, [*conversation(), *repeats])
    with session:
        assert session.leaf_id == "a2" and texts(session) == FULL
    assert "2 lines repeating an earlier entry's id" in warnings[0]


def test_a_repeated_unreadable_line_does_not_move_the_leaf(tmp_path: Path) -> None:
    broken = entry("u1", "a2", "x")
    broken["payload"]["Message"]["role"] = "wizard"
    session, warnings, _ = load(tmp_path, [*conversation(), broken])
    with session:
        assert session.leaf_id == "a2" and texts(session) == FULL
    assert "repeating an earlier entry's id" in warnings[0]


def test_a_leaf_whose_parent_is_missing_keeps_the_path(tmp_path: Path) -> None:
    session, warnings, _ = load(tmp_path, [*conversation(), entry("x", "nowhere", "q3")])
    with session:
        assert texts(session) == [*FULL, "q3"]
    assert "1 entry whose parent is missing" in warnings[0]


def test_repairs_follow_a_leaf_move(tmp_path: Path) -> None:
    moved = {
        "type": "Entry",
        "id": "m",
        "parent_id": "a2",
        "timestamp": {"secs_since_epoch": 5, "nanos_since_epoch": 0},
        "resolution": "Attached",
        "payload": {"LeafMoved": {"from": "a2", "to": "a1"}},
    }
    session, _, _ = load(tmp_path, [*conversation(), moved, entry("x", "x", "q2 again")])
    with session:
        assert texts(session) == ["sys", "q1", "r1", "q2 again"]


def test_a_repair_that_would_close_a_cycle_makes_a_root(tmp_path: Path) -> None:
    # b names c, read later, and c names a missing parent: c would continue from b, whose
    # parent is c, so c is read as a root instead.
    records = [entry("s", None, "sys", "system"), entry("b", "c", "b"), entry("c", "gone", "c")]
    session, warnings, _ = load(tmp_path, records)
    with session:
        parents = {node.id: node.parent_id for node in tree_page(session).nodes}
        assert parents == {"s": None, "b": "c", "c": None}
        assert session.leaf_id == "c" and texts(session) == ["c"]
    assert "read as roots" in warnings[0]


def test_many_self_parents_load_as_one_chain(tmp_path: Path) -> None:
    records: list[Any] = [entry("s", None, "sys", "system")]
    records += [entry(f"e{index}", f"e{index}", f"t{index}") for index in range(20_000)]
    session, warnings, _ = load(tmp_path, records)
    with session:
        assert session.path_length() == 20_001
        assert texts(session)[:2] == ["sys", "t0"]
    assert "20000 cycles of parents (cut at e0, e1, e2, …)" in warnings[0]


def test_hostile_ids_in_the_warning_are_escaped(tmp_path: Path) -> None:
    evil = "x\nrho: error: forged\x1b[2J"
    session, warnings, _ = load(tmp_path, [*conversation(), entry(evil, evil, "q3")])
    with session:
        assert texts(session) == [*FULL, "q3"]
    [warning] = warnings
    assert "\n" not in warning and "\x1b" not in warning
    assert '(cut at "x\\nrho: error: forged' in warning
