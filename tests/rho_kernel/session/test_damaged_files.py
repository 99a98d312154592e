"""Session files with damaged trees load what they can, warn once, and never crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_kernel.messages import ChatMessage
from rho_kernel.session import (
    Session,
    SessionError,
    UnknownPayload,
    UnknownResolution,
    summarize_branch,
    tree_page,
)
from rho_kernel.session.loading import find_cycle_cuts

HEADER = {
    "type": "Header",
    "id": "0000beef",
    "version": 2,
    "created_at_secs": 1,
    "cwd": "/project",
    "parent_session": None,
}


def entry(
    entry_id: str, parent: str | None, text: str = "hi", *, role: str = "user", **over: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "Entry",
        "id": entry_id,
        "parent_id": parent,
        "timestamp": {"secs_since_epoch": 5, "nanos_since_epoch": 0},
        "resolution": "Full",
        "payload": {"Message": {"role": role, "content": text}},
    }
    record.update(over)
    return record


def write(path: Path, *records: Any) -> Path:
    lines = [json.dumps(HEADER)] + [
        record if isinstance(record, str) else json.dumps(record) for record in records
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load(path: Path) -> tuple[Session, list[str]]:
    warnings: list[str] = []
    return Session.open(path, on_warning=warnings.append), warnings


def test_unknown_entry_kinds_and_resolutions_load_and_are_named_once(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        entry("a", None, role="system", text="sys"),
        entry("b", "a", payload={"Hologram": {"beam": 1}}),
        entry("c", "b", resolution={"Folded": {"depth": 3}}),
        entry("d", "c", text="last"),
        {"type": "Resolution", "entry": "zz", "resolution": "Pinned", "cursor": None},
        {"type": "Telepathy", "x": 1},
    )
    session, warnings = load(path)
    with session:
        assert list(session.entries) == ["a", "b", "c", "d"]
        assert isinstance(session.entries["b"].payload, UnknownPayload)
        assert isinstance(session.entries["c"].resolution, UnknownResolution)
        assert [m.text for m in session.path_messages()] == ["sys", "last"]
    [warning] = warnings
    assert str(path) in warning
    assert "1 entry of an unknown kind" in warning
    assert "1 unknown resolution" in warning
    assert "1 resolution change for no earlier entry" in warning
    assert "1 line of an unknown type" in warning


def test_a_missing_parent_continues_from_the_entry_written_before(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        entry("a", None, text="root", role="system"),
        entry("b", "gone", text="orphan"),
        entry("c", "b", text="child of orphan"),
    )
    session, warnings = load(path)
    with session:
        assert [m.text for m in session.path_messages()] == ["root", "orphan", "child of orphan"]
        page = tree_page(session)
        parents = {node.id: node.parent_id for node in page.nodes}
        assert parents == {"a": None, "b": "a", "c": "b"}
        session.append_message(ChatMessage.user("more"))  # still writable
    [warning] = warnings
    assert "1 entry whose parent is missing" in warning
    assert "continues from the entry before it" in warning
    assert '"parent_id": "gone"' in path.read_text()  # the file is not changed


def test_a_missing_parent_with_nothing_before_is_a_root(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", entry("b", "gone", text="orphan"), entry("c", "b"))
    session, warnings = load(path)
    with session:
        assert {node.id: node.parent_id for node in tree_page(session).nodes} == {
            "b": None,
            "c": "b",
        }
    [warning] = warnings
    assert "1 entry whose parent is missing; read as roots" in warning


def test_a_cycle_is_cut_at_the_member_written_first(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        entry("a", "c", text="one"),
        entry("b", "a", text="two"),
        entry("c", "b", text="three"),
        entry("s", "s", text="self"),
        entry("d", "c", text="after"),
        entry("u", "u", payload={"Message": {"role": "wizard"}}),  # unreadable, its own parent
        entry("v", "u", text="under the unreadable"),
    )
    session, warnings = load(path)
    with session:
        assert session.entries["a"].parent_id is None  # nothing before it: a root
        assert session.entries["s"].parent_id == "c"  # the leaf when it was written
        assert [m.text for m in session.path_messages()] == [
            "one",
            "two",
            "three",
            "after",
            "under the unreadable",
        ]
        assert session.tree_parent(session.entries["v"]) == "d"
        assert session.fork("d").entry_count == 4
        assert [e.id for e in session.abandoned_by("s")] == ["d", "v"]
    [warning] = warnings
    assert "3 cycles of parents (cut at a, s, u)" in warning
    assert "1 entry read as roots, the rest continue from the entry before them" in warning
    assert (
        path.read_text().count('"parent_id":"c"') + path.read_text().count('"parent_id": "c"') == 2
    )  # the file is not changed


def test_cycle_closed_by_an_entry_after_an_unreadable_one_is_cut(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        entry("g", "e", payload={"Message": {"role": "wizard"}}),  # unreadable: a gap
        entry("e", "g", text="after the gap"),
    )
    session, warnings = load(path)
    with session:
        [node] = tree_page(session).nodes
        assert node.id == "e" and node.parent_id is None
    [warning] = warnings
    assert "1 cycle of parents (cut at e)" in warning


def test_cycle_through_an_unreadable_entry_is_cut(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        entry("a", "g", text="one"),
        entry("g", "a", payload={"Message": {"role": "wizard"}}),  # unreadable: a gap
        entry("b", "a", text="two"),
    )
    session, warnings = load(path)
    with session:
        assert [m.text for m in session.path_messages()] == ["one", "two"]
        assert {node.id: node.parent_id for node in tree_page(session).nodes} == {
            "a": None,
            "b": "a",
        }
    [warning] = warnings
    assert "skipped 1 unreadable line" in warning and "cycle" in warning


def test_a_sound_file_gives_no_warning(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", entry("a", None), entry("b", "a"))
    session, warnings = load(path)
    session.close()
    assert warnings == []


def test_find_cycle_cuts_on_a_long_chain_is_linear_and_finds_nothing() -> None:
    parents: dict[str, str | None] = {str(i): str(i - 1) if i else None for i in range(50_000)}
    assert find_cycle_cuts(parents) == []
    parents["0"] = "49999"
    assert find_cycle_cuts(parents) == ["0"]


_IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", None])
_JUNK = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=2),
)


@st.composite
def hostile_line(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 6))
    entry_id, parent = draw(_IDS) or "a", draw(_IDS)
    if kind == 0:
        return entry(entry_id, parent, draw(st.text(max_size=20)))
    if kind == 1:
        return entry(entry_id, parent, resolution=draw(st.one_of(_JUNK, st.just("Pinned"))))
    if kind == 2:
        return entry(entry_id, parent, payload=draw(_JUNK))
    if kind == 3:
        return {"type": "Resolution", "entry": draw(_IDS), "resolution": draw(_JUNK)}
    if kind == 4:
        return {"type": draw(st.text(max_size=8)), "id": entry_id}
    if kind == 5:
        return draw(st.text(max_size=30))  # not JSON at all (or JSON of any kind)
    return entry(
        entry_id,
        parent,
        payload={"Label": {"target_id": draw(_IDS) or "x", "label": draw(st.text(max_size=9))}},
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile_line(), max_size=12))
def test_any_mix_of_hostile_lines_loads_and_every_view_works(lines: list[Any]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "s.jsonl", *lines)
        warnings: list[str] = []
        try:
            session = Session.open(path, on_warning=warnings.append)
        except SessionError:
            pytest.fail("a readable header must always load")
        with session:
            assert len(warnings) <= 1
            session.path_messages()
            page = tree_page(session, 0, 500)
            assert len(page.nodes) == session.entry_count
            known = set(session.entries)
            parents = {node.id: node.parent_id for node in page.nodes}
            for node in page.nodes:
                assert node.parent_id is None or node.parent_id in known
                assert len(node.preview) <= 120
                current, steps = node.parent_id, 0
                while current is not None:  # every chain of parents ends at a root
                    current, steps = parents[current], steps + 1
                    assert steps <= len(parents)
            for entry_id in list(session.entries):
                summarize_branch(session.abandoned_by(entry_id))
            session.fork().close()
            if session.entries:
                target = next(iter(session.entries))
                session.set_label(target, "x")
                session.branch_to(target)
            session.append_message(ChatMessage.user("still works"))


def test_a_readable_line_repeating_an_unreadable_lines_id_is_ignored(
    tmp_path: Path,
) -> None:
    unreadable = {"type": "Entry", "id": "a", "parent_id": None, "resolution": None}
    looping = {
        "type": "Entry",
        "id": "a",
        "parent_id": "a",
        "timestamp": {"secs_since_epoch": 5, "nanos_since_epoch": 0},
        "resolution": "Full",
        "payload": {"Message": {"role": "user", "content": "hi"}},
    }
    session, warnings = load(write(tmp_path / "s.jsonl", unreadable, looping))
    with session:
        assert session.entry_count == 0 and session.leaf_id == "a"  # the first line is "a"
        assert session.path_messages() == []
        session.append_message(ChatMessage.user("on"))
    [warning] = warnings
    assert "1 line repeating an earlier entry's id (first: line 3" in warning
