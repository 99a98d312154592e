"""Property tests of fitting's invariants over random sessions, fitted request after request.

Invariants: the request never exceeds the budget when it can fit at all (and fitting refuses
only when even the minimum cannot fit); the system messages, the first and last user
message, the last turn and pinned entries are sent verbatim; a tool call and its result are
never split; messages keep their order; and a fresh plan shortens before it leaves out.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rho_kernel.context import (
    STEP_REASONS,
    ContextFitter,
    ContextOverflow,
    FitResult,
    FitStep,
    message_bytes,
)
from rho_kernel.context.outlines import OUTLINE, SUMMARY, generic_outline, short_size
from rho_kernel.context.path_items import TINY_BYTES
from rho_kernel.context.results import _NOTE_BYTES
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import (
    PINNED,
    CompactionPayload,
    CompactionSummary,
    Full,
    Outlined,
    Pinned,
    Session,
)
from rho_kernel.session.entries import render_entry

# ── random sessions ──────────────────────────────────────────────────────────

text = st.builds(
    lambda unit, count: unit * count,
    st.sampled_from(["a", "word ", "é", "line\n", "{}", "日本"]),
    st.integers(min_value=0, max_value=1500),
)

user_step = st.tuples(st.just("user"), text)
tool_step = st.tuples(
    st.just("tools"),
    text,  # the assistant's text
    st.lists(st.tuples(text, st.booleans(), st.booleans()), min_size=1, max_size=3),
)
reply_step = st.tuples(st.just("reply"), text)
pin_step = st.tuples(st.just("pin"), st.integers(min_value=0, max_value=10_000))
outline_step = st.tuples(st.just("outline"), st.integers(min_value=0, max_value=10_000))
other_step = st.tuples(st.just("custom"))
compaction_step = st.tuples(st.just("compaction"), text)
fit_step = st.tuples(
    st.just("fit"),
    st.integers(min_value=50, max_value=6000),  # budget tokens
    st.sampled_from([1.0, 2.5, 3.7, 6.0]),  # ratio
    st.integers(min_value=0, max_value=2000),  # overhead bytes
)

steps = st.lists(
    st.one_of(
        user_step,
        tool_step,
        tool_step,
        reply_step,
        pin_step,
        outline_step,
        other_step,
        compaction_step,
        fit_step,
        fit_step,
    ),
    min_size=1,
    max_size=40,
)


@dataclass
class _Run:
    session: Session
    calls: int = 0


def _apply(run: _Run, step: tuple[Any, ...]) -> None:
    session = run.session
    kind = step[0]
    run.calls += 1  # every text is made unique, so that a message sent is found by its text
    if kind == "user":
        session.append_message(ChatMessage.user(f"{step[1]}#{run.calls}"))
    elif kind == "reply":
        session.append_message(ChatMessage.assistant(f"{step[1]}#{run.calls}"))
    elif kind == "tools":
        calls = []
        for arguments, _, _ in step[2]:
            run.calls += 1
            calls.append(
                ToolCall(
                    id=f"call_{run.calls}",
                    function=FunctionCall(name="tool", arguments=json.dumps({"a": arguments})),
                )
            )
        session.append_message(ChatMessage.assistant(step[1], tool_calls=calls))
        for call, (output, is_error, outlined) in zip(calls, step[2], strict=True):
            result = ChatMessage.tool_result(call.id, f"{output}#{call.id}", is_error)
            if outlined:
                result.outline = f"tool: {len(output)} chars"
            session.append_message(result)
    elif kind in ("pin", "outline"):
        path = session.path_entries()
        if path:
            target = path[step[1] % len(path)]
            if kind == "pin":
                session.set_resolution(target.id, PINNED)
            elif target.message is not None and target.message.role == "user":
                session.set_resolution(target.id, Outlined(outline="shown short"))
    elif kind == "custom":
        session.append_custom("test.note.v1", {"n": 1})
    elif kind == "compaction":
        first = session.path_entries()[0].id if session.path_entries() else "0"
        session.append_payload(
            CompactionPayload(summary=CompactionSummary(notes=step[1][:200]), first_kept=first)
        )


# ── an independent model of the rules ─────────────────────────────────────────


@dataclass
class _Turn:
    items: list[tuple[Any, ChatMessage | None]]  # (entry, rendered message)

    @property
    def head(self) -> str | None:
        return next((m.role for _, m in self.items if m is not None), None)


def _turns(session: Session) -> list[_Turn]:
    turns: list[_Turn] = []
    for entry in session.path_entries():
        message = render_entry(entry)
        current = turns[-1] if turns else None
        if current is not None and (
            message is None or (message.role == "tool" and current.head in ("assistant", "tool"))
        ):
            current.items.append((entry, message))
        else:
            turns.append(_Turn([(entry, message)]))
    return turns


def _protected_turns(turns: list[_Turn]) -> set[int]:
    users = [i for i, t in enumerate(turns) if t.head == "user"]
    protected = {len(turns) - 1} if turns else set()
    if users:
        protected |= {users[0], users[-1]}
    return protected


def _fixed(entry: Any, message: ChatMessage) -> bool:
    keeps = (
        isinstance(entry.resolution, Pinned)
        or message.role == "system"
        or isinstance(entry.payload, CompactionPayload)
    )
    return keeps or not isinstance(entry.resolution, Full) or message_bytes(message) <= TINY_BYTES


def _keeps(turn: _Turn) -> bool:
    return any(
        m is not None
        and (
            isinstance(e.resolution, Pinned)
            or m.role == "system"
            or isinstance(e.payload, CompactionPayload)
        )
        for e, m in turn.items
    )


def _outline_text(message: ChatMessage, calls: dict[str, ToolCall]) -> str | None:
    """The outline fitting uses for a tool result (recorded, else the generic one)."""
    if message.role != "tool":
        return None
    if message.outline:
        return message.outline
    call = calls.get(message.tool_call_id or "")
    name, arguments = "tool", None
    if call is not None:
        name = call.function.name
        if len(call.function.arguments) <= 4096:
            arguments = json.loads(call.function.arguments)
    return generic_outline(name, arguments, message.text, bool(message.is_error))


def _calls(session: Session) -> dict[str, ToolCall]:
    return {
        call.id: call
        for entry in session.path_entries()
        if entry.message is not None
        for call in entry.message.tool_calls or ()
    }


def _smallest(entry: Any, message: ChatMessage, calls: dict[str, ToolCall]) -> int:
    full = message_bytes(message)
    if _fixed(entry, message):
        return full
    outline = _outline_text(message, calls)
    return min(full, short_size(message, OUTLINE, outline), short_size(message, SUMMARY, outline))


def _minimum(session: Session) -> int:
    """The least bytes any valid plan sends: protected turns at their smallest, the rest out."""
    turns = _turns(session)
    protected = _protected_turns(turns)
    calls = _calls(session)
    total = 0
    evicts = False
    for index, turn in enumerate(turns):
        if index in protected:
            total += sum(message_bytes(m) for _, m in turn.items if m is not None)
        elif _keeps(turn):
            total += sum(_smallest(e, m, calls) for e, m in turn.items if m is not None)
        elif any(m is not None for _, m in turn.items):
            evicts = True
    return total + (_NOTE_BYTES if evicts else 0)


# ── checks ──────────────────────────────────────────────────────────────────


def _check_fitted(session: Session, wire: list[dict[str, Any]], available: int) -> None:
    sent = [ChatMessage.model_validate(m) for m in wire]
    assert sum(message_bytes(m) for m in sent) <= available
    turns = _turns(session)
    protected = _protected_turns(turns)
    rendered = [(e, m) for t in turns for e, m in t.items if m is not None]
    path_wires = [m.to_wire() for _, m in rendered]
    # verbatim: system, first/last user turn, last turn, pinned entries
    for index, turn in enumerate(turns):
        for entry, message in turn.items:
            if message is None:
                continue
            if (
                index in protected
                or message.role == "system"
                or isinstance(entry.resolution, Pinned)
            ):
                assert message.to_wire() in wire, (index, message.role)
    # order: every message sent is the path's (verbatim or shortened), in path order
    position = 0
    for message in wire:
        if message["content"].endswith("to fit the context window]") and message["role"] == "user":
            continue
        while position < len(rendered) and not _same_origin(rendered[position][1], message):
            position += 1
        assert position < len(rendered), message
        position += 1
    # tool pairs: results follow their call; calls keep every result the path has
    answered = {
        m.tool_call_id for _, m in rendered if m.role == "tool" and m.tool_call_id is not None
    }
    open_calls: set[str] = set()
    sent_results = {m["tool_call_id"] for m in wire if m["role"] == "tool"}
    for message in wire:
        if message["role"] == "assistant":
            ids = {call["id"] for call in message.get("tool_calls", [])}
            assert (ids & answered) <= sent_results
            open_calls = ids
        elif message["role"] == "tool":
            assert message["tool_call_id"] in open_calls
        else:
            open_calls = set()
    assert len(path_wires) >= len(
        [m for m in wire if "to fit the context window]" not in m["content"]]
    )


def _same_origin(message: ChatMessage, wire: dict[str, Any]) -> bool:
    if message.to_wire() == wire:
        return True
    content = wire["content"]
    if not content.startswith(("[outline] ", "[summary] ")) and not (
        message.role == "assistant" and content == ""
    ):
        return False
    if message.role == "tool":
        return wire.get("tool_call_id") == message.tool_call_id
    if message.role == "assistant":
        return [c["id"] for c in wire.get("tool_calls", [])] == [
            c.id for c in message.tool_calls or ()
        ]
    return wire["role"] == "user"


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(system=st.booleans(), plan=steps)
def test_fitting_invariants_hold_request_after_request(system: bool, plan: list[Any]) -> None:
    session = Session.in_memory(Path("/tmp"))
    if system:
        session.append_message(ChatMessage.system("You are rho. " * 20))
    run = _Run(session)
    fitter = ContextFitter()
    previous: list[dict[str, Any]] | None = None
    for step in plan:
        if step[0] != "fit":
            _apply(run, step)
            continue
        _, budget, ratio, overhead = step
        available = math.floor(budget * ratio) - overhead
        for candidate in (fitter, ContextFitter()):  # incremental and fresh
            try:
                result = candidate.fit(
                    session, budget_tokens=budget, ratio=ratio, overhead_bytes=overhead
                )
            except ContextOverflow as overflow:
                assert _minimum(session) > available
                assert overflow.needed_tokens > budget or available < 0
                continue
            assert result.estimated_tokens <= budget
            _check_fitted(session, result.messages, available)
            _check_newest_whole(session, result.messages)
            if candidate is fitter:
                _check_step(previous, result)
                previous = result.messages
                _check_emitted_afresh(fitter, result.messages)


def _check_step(previous: list[dict[str, Any]] | None, result: FitResult) -> None:
    """The step says truly how the request begins compared with the previous one."""
    step = result.step
    assert step is not None and step.reason in STEP_REASONS
    if previous is None:
        assert step == FitStep(True, "start", 0)
        return
    kept = 0
    while kept < min(len(previous), len(result.messages)) and (
        previous[kept] == result.messages[kept]
    ):
        kept += 1
    assert step.kept_messages == kept
    assert step.changed == (kept < len(previous))
    assert (step.reason == "append") == (not step.changed)


def _check_newest_whole(session: Session, wire: list[dict[str, Any]]) -> None:
    """Never a tool result sent whole while a result of a later turn is sent shortened (of
    the results that shortening makes smaller: pinned and tiny ones are never shortened)."""
    calls = _calls(session)
    where: dict[str, tuple[int, Any, ChatMessage]] = {}
    for index, turn in enumerate(_turns(session)):
        for entry, message in turn.items:
            if message is not None and message.role == "tool" and message.tool_call_id:
                where[message.tool_call_id] = (index, entry, message)
    whole, cut = [], []
    for sent in wire:
        if sent["role"] != "tool":
            continue
        index, entry, message = where[sent["tool_call_id"]]
        if _fixed(entry, message) or _smallest(entry, message, calls) >= message_bytes(message):
            continue
        (whole if sent == message.to_wire() else cut).append(index)
    assert not whole or not cut or max(cut) <= min(whole), (cut, whole)


def _check_emitted_afresh(fitter: ContextFitter, messages: list[dict[str, Any]]) -> None:
    """The messages a fit kept from earlier fits (each turn's emitted wires) are those it
    would emit now from nothing."""
    for turn in fitter._groups:
        turn.wires, turn.slots, turn.emitted = [], [], -1
    fitter._tail_from = -1  # nothing kept: every group emitted again
    assert fitter._messages() == messages


class _StepByStep(ContextFitter):
    """The plan reached one step at a time, without the shortcut of a fresh plan."""

    def _fast_forward(self, available: int) -> None:
        return None


def _planned(plan: list[Any]) -> Session:
    """A session holding a system message and the plan's messages (its fits left out)."""
    session = Session.in_memory(Path("/tmp"))
    session.append_message(ChatMessage.system("system"))
    run = _Run(session)
    for step in plan:
        if step[0] != "fit":
            _apply(run, step)
    return session


def _check_shortened_before_left_out(session: Session, budget: int) -> None:
    """Every candidate a fresh plan still sends at full size had nothing to gain from
    shortening, when the plan left a turn out."""
    try:
        result = ContextFitter().fit(session, budget_tokens=budget, ratio=2.5)
    except ContextOverflow:
        return
    if result.evicted == 0:
        return
    turns = _turns(session)
    protected = _protected_turns(turns)
    calls = _calls(session)
    for index, turn in enumerate(turns):
        if index in protected:
            continue
        for entry, message in turn.items:
            if message is None or _fixed(entry, message):
                continue
            if message.to_wire() in result.messages:
                assert _smallest(entry, message, calls) == message_bytes(message)


def _check_fresh_equals_step_by_step(session: Session, budget: int) -> None:
    outcomes = []
    for fitter in (ContextFitter(), _StepByStep()):
        try:
            outcomes.append(fitter.fit(session, budget_tokens=budget, ratio=2.5).messages)
        except ContextOverflow as overflow:
            outcomes.append(overflow.needed_tokens)
    assert outcomes[0] == outcomes[1]


# One property test for both checks of a fresh plan: they read the same kind of session, and
# drawing the plan was most of their time.
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=steps, budget=st.integers(min_value=100, max_value=4000))
def test_a_fresh_plan_shortens_before_leaving_out_and_equals_the_plan_step_by_step(
    plan: list[Any], budget: int
) -> None:
    session = _planned(plan)
    _check_fresh_equals_step_by_step(session, budget)
    if budget >= 200:
        _check_shortened_before_left_out(session, budget)


steady_steps = st.lists(
    st.one_of(user_step, tool_step, tool_step, tool_step, reply_step, pin_step, other_step),
    min_size=1,
    max_size=40,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(  # a request that lost its protection, shortened only at the next step
    plan=[("user", "first"), ("user", "word " * 200)]
    + [("tools", "", [("line\n" * 150, False, True)])] * 8
    + [("user", "next")],
    budget=1500,
    low_water=0.5,
)
@given(
    plan=steady_steps,
    budget=st.integers(min_value=300, max_value=3000),
    low_water=st.sampled_from([0.3, 0.5, 0.8, 1.0]),
)
def test_at_a_steady_budget_requests_only_append_between_steps(
    plan: list[Any], budget: int, low_water: float
) -> None:
    """A session fitted after every message at one budget: each request begins with the
    whole previous one unless it says it took a step (and then why and what it kept); a
    step for the budget frees down to the low-water mark when the turns that are never
    shortened allow; the reads sent whole are the newest."""
    session = _planned([])
    run = _Run(session)
    fitter = ContextFitter()
    previous: list[dict[str, Any]] | None = None
    for step in plan:
        _apply(run, step)
        try:
            result = fitter.fit(session, budget_tokens=budget, ratio=2.5, low_water=low_water)
        except ContextOverflow:
            assert _minimum(session) > budget * 2.5
            continue
        sent = [ChatMessage.model_validate(m) for m in result.messages]
        assert sum(message_bytes(m) for m in sent) <= budget * 2.5
        _check_newest_whole(session, result.messages)
        _check_step(previous, result)
        assert result.step is not None
        assert result.step.reason in ("start", "append", "budget", "path")  # path: a pin
        previous = result.messages
