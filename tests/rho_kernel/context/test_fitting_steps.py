"""Fitting in steps: between steps a request only appends to the one before; a step frees
the conversation down to the low-water mark and says why it changed what was sent."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

from rho_kernel.context import ContextFitter, FitResult, FitStep, message_bytes
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import Session

BUDGET = 4000  # tokens, at 2.5 bytes a token: 10,000 bytes
RATIO = 2.5


def _session() -> Session:
    session = Session.in_memory(Path("/tmp"))
    session.append_message(ChatMessage.system("You are rho."))
    session.append_message(ChatMessage.user("FIRST: read every file"))
    return session


def _read(session: Session, index: int, size: int = 1500) -> None:
    call = ToolCall(
        id=f"c{index}",
        function=FunctionCall(name="read_file", arguments=json.dumps({"path": f"f{index}.py"})),
    )
    session.append_message(ChatMessage.assistant("", tool_calls=[call]))
    result = ChatMessage.tool_result(call.id, f"<context>{index}\n" + "x" * size, False)
    result.outline = f"read_file f{index}.py: 1 line"
    session.append_message(result)


def _size(result: FitResult) -> int:
    return sum(message_bytes(ChatMessage.model_validate(m)) for m in result.messages)


def _reads(result: FitResult) -> str:
    return "".join(
        "W" if m["content"].startswith("<context>") else "o"
        for m in result.messages
        if m["role"] == "tool"
    )


def _run(turns: int, **keywords: Any) -> list[FitResult]:
    session = _session()
    fitter = ContextFitter()
    results = []
    for index in range(turns):
        _read(session, index)
        results.append(fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, **keywords))
    return results


def test_between_steps_a_request_begins_with_the_whole_previous_one() -> None:
    results = _run(40)
    steps = [r.step for r in results]
    assert steps[0] == FitStep(True, "start", 0)
    for previous, result in itertools.pairwise(results):
        assert result.step is not None
        if not result.step.changed:
            assert result.step.reason == "append"
            assert result.messages[: len(previous.messages)] == previous.messages
            assert result.step.kept_messages == len(previous.messages)
        else:
            assert result.step.reason == "budget"
            kept = result.step.kept_messages
            assert result.messages[:kept] == previous.messages[:kept]
            assert result.messages[kept] != previous.messages[kept]
    changed = sum(1 for s in steps[1:] if s is not None and s.changed)
    assert 3 <= changed <= 12  # large steps: a few, not one a turn


def test_a_step_frees_the_conversation_down_to_the_low_water_mark() -> None:
    results = _run(40)
    available = math.floor(BUDGET * RATIO)
    for result in results:
        assert _size(result) <= available and result.estimated_tokens <= BUDGET
        if result.step is not None and result.step.changed and result.step.reason == "budget":
            # the protected turns (system, task, the newest read) and half the room they leave
            fixed = sum(
                message_bytes(ChatMessage.model_validate(m))
                for m in (result.messages[:2] + result.messages[-2:])
            )
            assert _size(result) <= fixed + (available - fixed) // 2


def test_a_higher_low_water_mark_steps_more_often_and_one_steps_every_turn() -> None:
    def changed(low_water: float) -> int:
        results = _run(40, low_water=low_water)
        return sum(1 for r in results[1:] if r.step is not None and r.step.changed)

    half, most, all_of_it = changed(0.5), changed(0.8), changed(1.0)
    assert half < most < all_of_it
    assert all_of_it >= 25  # freeing only what the request needs: a step nearly every turn


def test_the_reads_sent_whole_are_always_the_newest() -> None:
    for result in _run(40):
        assert "Wo" not in _reads(result)
        assert _reads(result).endswith("W")
        assert result.messages[:2] == [
            {"role": "system", "content": "You are rho."},
            {"role": "user", "content": "FIRST: read every file"},
        ]


def test_a_session_that_fits_only_appends() -> None:
    results: list[FitResult] = []
    session = _session()
    fitter = ContextFitter()
    for index in range(30):
        _read(session, index)
        results.append(fitter.fit(session, budget_tokens=1_000_000, ratio=RATIO))
    assert [r.step for r in results[1:]] == [
        FitStep(False, "append", len(r.messages)) for r in results[:-1]
    ]
    assert _reads(results[-1]) == "W" * 30


def test_a_fit_for_statistics_does_not_hide_a_step_from_the_next_request() -> None:
    session = _session()
    fitter = ContextFitter()
    index = 0
    while True:
        _read(session, index)
        index += 1
        sent = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO)
        view = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, view=True)
        assert view.step == FitStep(False, "append", len(sent.messages))
        _read(session, index)
        index += 1
        view = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, view=True)
        assert view.step is not None
        if view.step.changed:
            break
    request = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO)
    assert request.step == view.step and request.step.reason == "budget"
    assert request.messages == view.messages
    again = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO)
    assert again.step == FitStep(False, "append", len(request.messages))


def test_changed_tool_definitions_change_the_prefix_from_the_start() -> None:
    session = _session()
    fitter = ContextFitter()
    tools = [{"name": "read_file", "description": "Read.", "parameters": {"type": "object"}}]
    _read(session, 0)
    fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, tools=tools)
    _read(session, 1)
    same = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, tools=[dict(tools[0])])
    assert same.step is not None and not same.step.changed
    more = [*tools, {"name": "grep", "description": "Grep.", "parameters": {"type": "object"}}]
    _read(session, 2)
    changed = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, tools=more)
    assert changed.step == FitStep(True, "tools", 0)


def test_a_branch_and_a_larger_window_are_steps_with_their_reason() -> None:
    session = _session()
    fitter = ContextFitter()
    for index in range(12):
        _read(session, index)
        fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO)
    grown = fitter.fit(session, budget_tokens=BUDGET * 4, ratio=RATIO)
    assert grown.rebuilt and grown.step is not None
    assert grown.step.changed and grown.step.reason == "grew"
    assert _reads(grown) == "W" * 12  # the larger window takes every read whole again
    calibrated = fitter.fit(session, budget_tokens=BUDGET * 4, ratio=RATIO * 1.5)
    assert not calibrated.rebuilt and calibrated.step is not None
    assert not calibrated.step.changed  # more bytes a token: room for what comes, no rewrite
    session.branch_to(session.path_entries()[5].id)
    branched = fitter.fit(session, budget_tokens=BUDGET * 4, ratio=RATIO)
    assert branched.step is not None and branched.step.changed
    assert branched.step.reason == "path" and branched.step.kept_messages == 6  # up to it
