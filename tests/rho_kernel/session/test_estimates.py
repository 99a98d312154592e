"""Entry estimates: made during the load's own pass over a session file, kept with the session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rho_kernel.session.estimates as estimates_module
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import Outlined, Session, Summarized
from rho_kernel.session.entries import Entry
from rho_kernel.session.estimates import estimates_of, measure
from rho_kernel.session.stats import ContextMeter


def _written(tmp_path: Path, turns: int) -> Path:
    """A session file of a system message and `turns` read_file rounds."""
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir(exist_ok=True)
    with Session.create(project, home=home) as session:
        session.append_message(ChatMessage.system("You are rho."))
        for n in range(turns):
            session.append_message(ChatMessage.user(f"read file {n}"))
            call = ToolCall(id=f"c{n}", function=FunctionCall(name="read_file", arguments="{}"))
            session.append_message(ChatMessage.assistant("", [call]))
            session.append_message(ChatMessage.tool_result(f"c{n}", "line\n" * (n + 1), False))
        session.append_message(ChatMessage.assistant("Done."))
        path = session.path
    assert path is not None
    return path


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[ChatMessage]:
    """Every message `approximate_tokens` estimates from now on."""
    seen: list[ChatMessage] = []
    original = estimates_module.approximate_tokens

    def counting(message: ChatMessage) -> int:
        seen.append(message)
        return original(message)

    monkeypatch.setattr(estimates_module, "approximate_tokens", counting)
    return seen


def test_opening_a_session_estimates_every_entry_once_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _written(tmp_path, 50)
    seen = _counting(monkeypatch)
    with Session.open(path) as session:
        assert len(seen) == session.entry_count == 152
        kept = estimates_of(session)
        assert all(kept[key][0] is entry for key, entry in session.entries.items())
        seen.clear()
        stats = ContextMeter(context_window=100_000, completion_reserve=0).stats(session)
        assert seen == []  # the first statistics only add the estimates up
        assert stats.message_count == 152


def test_a_resolution_line_is_estimated_at_the_resolution_it_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _written(tmp_path, 3)
    with Session.open(path) as session:
        target = session.path_entries()[3].id  # the first tool result
        session.set_resolution(target, Outlined(outline="read_file: 1 line"))
        session.set_resolution(target, Summarized(summary="read it"))
    seen = _counting(monkeypatch)
    with Session.open(path) as session:
        entry, info = estimates_of(session)[target]
        assert entry is session.entries[target] and isinstance(entry.resolution, Summarized)
        assert info == measure(entry)
        seen.clear()
        stats = ContextMeter(context_window=10_000, completion_reserve=0).stats(session)
        assert seen == [] and stats.resolution_tokens["summarized"] > 0


def test_an_entry_that_cannot_be_estimated_does_not_stop_the_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _written(tmp_path, 2)
    lines = path.read_text().splitlines()
    odd = json.loads(lines[3])["id"]  # the first assistant message with a call
    original = estimates_module.measure

    def failing(entry: Entry) -> object:
        if entry.id == odd:
            raise ValueError("cannot estimate this")
        return original(entry)

    monkeypatch.setattr(estimates_module, "measure", failing)
    with Session.open(path) as session:
        assert odd in session.entries and odd not in estimates_of(session)
        assert len(estimates_of(session)) == session.entry_count - 1
    monkeypatch.setattr(estimates_module, "measure", original)
    with Session.open(path) as session:  # made when asked for, once it can be
        stats = ContextMeter(context_window=10_000, completion_reserve=0).stats(session)
        assert stats.message_count == session.entry_count


def test_a_new_session_s_entries_are_estimated_when_first_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _counting(monkeypatch)
    session = Session.in_memory(tmp_path)
    session.append_message(ChatMessage.system("s"))
    session.append_message(ChatMessage.user("u"))
    assert seen == []
    meter = ContextMeter(context_window=1000, completion_reserve=0)
    meter.stats(session)
    assert len(seen) == 2
    meter.stats(session)
    assert len(seen) == 2
