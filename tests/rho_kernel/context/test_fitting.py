"""The fitting planner: what it sends, what it keeps, and that it works incrementally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rho_kernel.context import ContextFitter, ContextOverflow, omitted_note
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import PINNED, Session


def _session() -> Session:
    session = Session.in_memory(Path("/tmp"))
    session.append_message(ChatMessage.system("You are rho."))
    session.append_message(ChatMessage.user("FIRST: fix the parser"))
    return session


def _read(session: Session, index: int, size: int = 4000, outline: bool = True) -> None:
    call = ToolCall(
        id=f"c{index}",
        function=FunctionCall(name="read_file", arguments=json.dumps({"path": f"f{index}.py"})),
    )
    session.append_message(ChatMessage.assistant(f"reading f{index}", tool_calls=[call]))
    result = ChatMessage.tool_result(call.id, "x" * size, False)
    if outline:
        result.outline = f"read_file f{index}.py: 1 line"
    session.append_message(result)


def test_everything_is_sent_verbatim_when_it_fits() -> None:
    session = _session()
    _read(session, 0)
    result = ContextFitter().fit(session, budget_tokens=10_000, ratio=2.5)
    assert result.messages == [m.to_wire() for m in session.path_messages()]
    assert (result.outlined, result.summarized, result.evicted) == (0, 0, 0)


def test_old_results_are_outlined_oldest_first_before_anything_is_left_out() -> None:
    session = _session()
    for index in range(5):
        _read(session, index)
    result = ContextFitter().fit(session, budget_tokens=5000, ratio=2.5)
    contents = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert contents[0] == "[outline] read_file f0.py: 1 line"
    assert contents[-1] == "x" * 4000  # the last turn is never shortened
    assert result.evicted == 0 and result.outlined >= 1
    assert result.messages[1]["content"] == "FIRST: fix the parser"
    assert result.estimated_tokens <= 5000


def test_turns_are_left_out_with_a_note_once_everything_is_short() -> None:
    session = _session()
    for index in range(300):
        _read(session, index)
    result = ContextFitter().fit(session, budget_tokens=3000, ratio=2.5)
    assert result.messages[:2] == [m.to_wire() for m in session.path_messages()[:2]]
    assert result.messages[2] == {"role": "user", "content": omitted_note(result.evicted)}
    assert result.evicted > 0 and result.estimated_tokens <= 3000
    assert result.messages[-1]["content"] == "x" * 4000


def test_a_result_without_a_recorded_outline_gets_a_generic_one() -> None:
    session = _session()
    _read(session, 0, outline=False)
    _read(session, 1)
    result = ContextFitter().fit(session, budget_tokens=2500, ratio=2.5)
    assert result.messages[3]["content"] == (
        "[outline] read_file(path=f0.py) → ok: " + "x" * 79 + "… (1 line)"
    )


def test_pinned_entries_are_never_shortened() -> None:
    session = _session()
    _read(session, 0)
    session.set_resolution(session.path_entries()[-1].id, PINNED)
    _read(session, 1)
    _read(session, 2)
    result = ContextFitter().fit(session, budget_tokens=3500, ratio=2.5)
    tools = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert tools == ["x" * 4000, "[outline] read_file f1.py: 1 line", "x" * 4000]


def test_overflow_names_the_sizes_when_the_protected_part_cannot_fit() -> None:
    session = _session()
    session.append_message(ChatMessage.user("y" * 10_000))
    with pytest.raises(ContextOverflow) as caught:
        ContextFitter().fit(session, budget_tokens=1000, ratio=2.5, overhead_bytes=250)
    assert caught.value.budget_tokens == 1000 and caught.value.overhead_tokens == 100
    assert caught.value.needed_tokens > 4000
    assert "does not fit the context window" in str(caught.value)
    assert "--token-budget" in str(caught.value)


def test_a_fit_after_appends_measures_only_the_new_entries() -> None:
    session = _session()
    fitter = ContextFitter()
    for index in range(200):
        _read(session, index)
    first = fitter.fit(session, budget_tokens=3000, ratio=2.5)
    assert first.rebuilt and first.measured == 402
    _read(session, 200)
    second = fitter.fit(session, budget_tokens=3000, ratio=2.5)
    assert not second.rebuilt and second.measured == 2
    assert second.estimated_tokens <= 3000
    assert second.messages == ContextFitter().fit(session, budget_tokens=3000, ratio=2.5).messages


def test_the_plan_starts_over_when_the_path_changes_or_the_budget_grows() -> None:
    session = _session()
    fitter = ContextFitter()
    for index in range(10):
        _read(session, index)
    small = fitter.fit(session, budget_tokens=3000, ratio=2.5)
    assert small.outlined > 0
    slightly = fitter.fit(session, budget_tokens=3100, ratio=2.5)
    assert not slightly.rebuilt
    large = fitter.fit(session, budget_tokens=100_000, ratio=2.5)
    assert large.rebuilt and large.outlined == 0
    session.branch_to(session.path_entries()[3].id)
    assert fitter.fit(session, budget_tokens=100_000, ratio=2.5).rebuilt
    other = _session()
    assert fitter.fit(other, budget_tokens=100_000, ratio=2.5).rebuilt


def test_a_previous_request_loses_its_protection_at_the_next_step() -> None:
    session = _session()
    fitter = ContextFitter()
    session.append_message(ChatMessage.user("second request " + "z" * 3000))
    for index in range(30):
        _read(session, index)
    fitter.fit(session, budget_tokens=3000, ratio=2.5)
    session.append_message(ChatMessage.user("third request"))
    kept = fitter.fit(session, budget_tokens=3000, ratio=2.5)
    # it still fits: the second request is sent as before, nothing sent is rewritten
    assert kept.step is not None and not kept.step.changed
    assert any("z" * 3000 in m["content"] for m in kept.messages)
    index = 30
    while True:  # until the conversation outgrows the budget: a step shortens it
        _read(session, index, size=500)
        index += 1
        result = fitter.fit(session, budget_tokens=3000, ratio=2.5)
        assert result.step is not None
        if result.step.changed:
            break
    assert result.step.reason == "budget"
    assert all("z" * 3000 not in m["content"] for m in result.messages)
    assert result.messages[1]["content"] == "FIRST: fix the parser"
    assert "third request" in [m["content"] for m in result.messages]


def test_a_long_turn_sends_its_messages_as_they_now_stand_at_every_request() -> None:
    # One prompt, many tool results: each request sends the turn's earlier messages again,
    # kept from the last request, except where a result was shortened since.
    session = _session()
    fitter = ContextFitter()
    for index in range(40):
        _read(session, index, size=2000)
        result = fitter.fit(session, budget_tokens=20_000, ratio=1.0)
        sent = [m for m in result.messages if m["role"] == "tool"]
        shortened = [m for m in sent if len(m["content"]) < 2000]
        assert len(sent) == index + 1
        assert len(shortened) == result.outlined
    assert result.outlined > 10
