"""Context statistics: the estimator, `ContextStats` and the cached `ContextMeter`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rho_kernel.session.estimates as estimates_module
import rho_kernel.session.stats as stats_module
from rho_kernel.messages import ChatMessage, FunctionCall, TextPart, ToolCall
from rho_kernel.session import (
    PINNED,
    BranchSummaryPayload,
    Compacted,
    CompactionPayload,
    CompactionSummary,
    ContextStats,
    CustomMessagePayload,
    ModelChangePayload,
    Outlined,
    Session,
    Summarized,
)
from rho_kernel.session.stats import ContextMeter, approximate_tokens, schema_tokens
from rho_kernel.tools.base import Phase


def call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


def reference_tokens(message: ChatMessage) -> int:
    """The estimator written out again, independently of the implementation."""
    size = len(message.text.encode()) + 20
    if message.role == "tool":
        size += len(message.tool_call_id or "") + 10
    for tool_call in message.tool_calls or []:
        size += len(tool_call.function.name) + len(tool_call.function.arguments.encode())
    return max(1, math.ceil(size / 4))


PHASES = {"read_file": Phase.EXPLORATION, "edit_file": "execution", "list_dir": None}


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session.in_memory(tmp_path)


def build_conversation(session: Session) -> None:
    """system, user, three tool rounds (read_file, edit_file, an unknown tool), final reply."""
    session.append_message(ChatMessage.system("You are rho."))
    session.append_message(ChatMessage.user("Fix the bug in src/lib.rs"))
    session.append_message(
        ChatMessage.assistant("", [call("call_1", "read_file", '{"path":"src/lib.rs"}')])
    )
    session.append_message(ChatMessage.tool_result("call_1", "fn main() {}\n", False))
    session.append_message(
        ChatMessage.assistant(
            "Editing.",
            [call("call_2", "edit_file", '{"path":"src/lib.rs","old":"a","new":"b"}')],
        )
    )
    session.append_message(ChatMessage.tool_result("call_2", "ok", False))
    session.append_message(ChatMessage.assistant("", [call("call_3", "mystery", "{}")]))
    session.append_message(ChatMessage.tool_result("call_3", "?", True))
    session.append_message(ChatMessage.assistant("Done — fixed.", finish_reason="stop"))


# ── estimators ──────────────────────────────────────────────────────────────


def test_approximate_tokens_plain_messages() -> None:
    assert approximate_tokens(ChatMessage.user("")) == 5  # 20 / 4
    assert approximate_tokens(ChatMessage.user("abcd")) == 6  # 24 / 4
    assert approximate_tokens(ChatMessage.user("abcde")) == 7  # ceil(25 / 4)
    assert approximate_tokens(ChatMessage.user("é")) == 6  # 2 bytes: ceil(22 / 4)
    parts = ChatMessage(role="user", content=[TextPart(text="ab"), TextPart(text="cd")])
    assert approximate_tokens(parts) == 6


def test_approximate_tokens_tool_messages_and_calls() -> None:
    # 0 text + 20 + len("call_1") 6 + 10 = 36 → 9
    assert approximate_tokens(ChatMessage.tool_result("call_1", "", False)) == 9
    # 20 + "read_file" 9 + '{"path":"a"}' 12 = 41 → 11
    message = ChatMessage.assistant("", [call("c", "read_file", '{"path":"a"}')])
    assert approximate_tokens(message) == 11


def test_approximate_tokens_survives_lone_surrogates() -> None:
    assert approximate_tokens(ChatMessage.user("\ud800")) == 6  # 3 bytes (surrogatepass)


def test_schema_tokens() -> None:
    assert schema_tokens([]) == 0
    schemas = [{"name": "read_file", "description": "Read a file.", "parameters": {}}]
    assert schema_tokens(schemas) == math.ceil(len(json.dumps(schemas)) / 4)


# ── a hand-built conversation ───────────────────────────────────────────────


def test_stats_of_hand_built_conversation(session: Session) -> None:
    build_conversation(session)
    session.append_payload(ModelChangePayload(model="gpt-4o"))  # Attached: counts nowhere
    meter = ContextMeter(
        context_window=1000, completion_reserve=200, tool_phases=PHASES, overhead_tokens=17
    )
    stats = meter.stats(session)

    # Per message (see reference_tokens): system 8, user 12, assistant 13/20/8/9, tool 13/10/10.
    assert [reference_tokens(m) for m in session.path_messages()] == [
        8,
        12,
        13,
        13,
        20,
        10,
        8,
        10,
        9,
    ]
    assert stats.role_tokens == {"system": 8, "user": 12, "assistant": 50, "tool": 33}
    assert stats.resolution_tokens == {"full": 103, "outlined": 0, "summarized": 0, "pinned": 0}
    assert stats.phase_tokens == {
        "exploration": 13,
        "execution": 10,
        "verification": 0,
        "conclusion": 9,
        "unclassified": 8 + 12 + 13 + 20 + 8 + 10,
    }
    assert stats.estimated_used == 103 + 17
    assert stats.message_count == 9
    assert stats.entry_count == 10
    assert stats.path_entry_count == 10
    assert stats.compacted_entry_count == 0
    assert stats.compaction_tokens == 0
    assert stats.prompt_budget == 800
    assert stats.estimated_remaining == 800 - 120
    assert stats.utilization_percent == 15.0


def test_remaining_and_utilization_round_to_one_decimal(session: Session) -> None:
    build_conversation(session)
    meter = ContextMeter(context_window=1000, completion_reserve=200, tool_phases=PHASES)
    stats = meter.stats(session)
    assert stats.estimated_used == 103
    assert stats.estimated_remaining == 697
    assert stats.utilization_percent == 12.9  # 103 * 100 / 800 = 12.875
    assert list(stats.role_tokens) == ["system", "user", "assistant", "tool"]
    assert list(stats.resolution_tokens) == ["full", "outlined", "summarized", "pinned"]
    assert list(stats.phase_tokens) == [
        "exploration",
        "execution",
        "verification",
        "conclusion",
        "unclassified",
    ]


def test_empty_session(session: Session) -> None:
    stats = ContextMeter(context_window=100, completion_reserve=10).stats(session)
    assert stats.estimated_used == 0
    assert stats.message_count == stats.entry_count == stats.path_entry_count == 0
    assert stats.utilization_percent == 0.0
    assert stats.estimated_remaining == 90


# ── utilization edge cases ──────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("window", "reserve", "used", "percent", "remaining"),
    [
        (100, 100, 0, 100.0, 0),  # budget 0
        (100, 150, 5, 100.0, 0),  # reserve over the window: budget clamps to 0
        (110, 10, 150, 100.0, 0),  # over budget clamps to 100, remaining to 0
        (13, 10, 1, 33.3, 2),  # one decimal
        (16, 10, 4, 66.7, 2),
        (110, 10, 100, 100.0, 0),
    ],
)
def test_utilization(window: int, reserve: int, used: int, percent: float, remaining: int) -> None:
    stats = ContextStats(context_window=window, completion_reserve=reserve, estimated_used=used)
    assert stats.prompt_budget == max(0, window - reserve)
    assert stats.utilization_percent == percent
    assert stats.estimated_remaining == remaining


def test_overhead_alone_can_exceed_budget(session: Session) -> None:
    session.append_message(ChatMessage.user("hi"))
    meter = ContextMeter(context_window=100, completion_reserve=50, overhead_tokens=500)
    stats = meter.stats(session)
    assert stats.estimated_used == 506
    assert stats.utilization_percent == 100.0
    assert stats.estimated_remaining == 0


# ── phase attribution ───────────────────────────────────────────────────────


def test_phase_attribution(session: Session) -> None:
    session.append_message(ChatMessage.user("go"))
    session.append_message(
        ChatMessage.assistant(
            "Looking.",
            [
                call("a", "read_file", "{}"),
                call("b", "list_dir", "{}"),
                call("c", "cargo_test", "{}"),
                call("d", "run_command", "{}"),
            ],
        )
    )
    for call_id in "abcd":
        session.append_message(ChatMessage.tool_result(call_id, "x" * 40, False))
    session.append_message(ChatMessage.tool_result("zz", "orphan result", False))
    session.append_message(ChatMessage.assistant(""))  # no text, no calls: unclassified
    session.append_message(ChatMessage.assistant("All done."))
    phases = {
        "read_file": Phase.EXPLORATION,
        "list_dir": None,
        "cargo_test": Phase.VERIFICATION,
        "run_command": "not-a-phase",
    }
    stats = ContextMeter(context_window=10_000, completion_reserve=0, tool_phases=phases).stats(
        session
    )
    tool = reference_tokens(ChatMessage.tool_result("a", "x" * 40, False))
    messages = session.path_messages()
    total = sum(reference_tokens(m) for m in messages)
    conclusion = reference_tokens(messages[-1])
    assert stats.phase_tokens["exploration"] == tool
    assert stats.phase_tokens["verification"] == tool
    assert stats.phase_tokens["execution"] == 0
    assert stats.phase_tokens["conclusion"] == conclusion
    assert stats.phase_tokens["unclassified"] == total - 2 * tool - conclusion
    assert sum(stats.phase_tokens.values()) == stats.estimated_used == total


def test_tool_phases_can_be_updated(session: Session) -> None:
    session.append_message(ChatMessage.assistant("", [call("a", "grep", "{}")]))
    session.append_message(ChatMessage.tool_result("a", "hit", False))
    meter = ContextMeter(context_window=1000, completion_reserve=0)
    assert meter.stats(session).phase_tokens["exploration"] == 0
    meter.tool_phases["grep"] = "exploration"
    assert meter.stats(session).phase_tokens["exploration"] == reference_tokens(
        session.path_messages()[1]
    )


def test_tool_result_keeps_phase_when_its_call_is_compacted(session: Session) -> None:
    assistant = session.append_message(ChatMessage.assistant("", [call("a", "read_file", "{}")]))
    result = session.append_message(ChatMessage.tool_result("a", "content", False))
    session.set_resolution(assistant.id, Compacted(into=result.id))
    stats = ContextMeter(context_window=1000, completion_reserve=0, tool_phases=PHASES).stats(
        session
    )
    assert stats.compacted_entry_count == 1
    assert stats.phase_tokens["exploration"] == stats.estimated_used > 0


# ── resolutions and compaction ──────────────────────────────────────────────


def test_resolution_buckets_after_set_resolution(session: Session) -> None:
    build_conversation(session)
    entries = session.path_entries()
    meter = ContextMeter(context_window=10_000, completion_reserve=0, tool_phases=PHASES)
    before = meter.stats(session)

    session.set_resolution(entries[3].id, Outlined(outline="read_file: src/lib.rs (1 lines)"))
    session.set_resolution(entries[4].id, Summarized(summary="Requested: edit_file(...)"))
    session.set_resolution(entries[1].id, PINNED)
    session.set_resolution(entries[5].id, Compacted(into=entries[8].id))
    stats = meter.stats(session)

    outlined = reference_tokens(
        ChatMessage.tool_result("call_1", "read_file: src/lib.rs (1 lines)", False)
    )
    summarized = reference_tokens(
        ChatMessage.assistant(
            "Requested: edit_file(...)",
            [call("call_2", "edit_file", '{"path":"src/lib.rs","old":"a","new":"b"}')],
        )
    )
    assert stats.resolution_tokens == {
        "full": 8 + 13 + 8 + 10 + 9,
        "outlined": outlined,
        "summarized": summarized,
        "pinned": 12,
    }
    assert stats.compacted_entry_count == 1
    assert stats.message_count == before.message_count - 1
    assert stats.estimated_used == sum(reference_tokens(m) for m in session.path_messages())
    # The outlined tool result still belongs to the read_file call.
    assert stats.phase_tokens["exploration"] == outlined
    assert stats.phase_tokens["execution"] == 0  # its tool result is compacted
    assert stats == ContextMeter(
        context_window=10_000, completion_reserve=0, tool_phases=PHASES
    ).stats(session)


def test_compaction_and_branch_summary_tokens(session: Session) -> None:
    first = session.append_message(ChatMessage.user("old request"))
    second = session.append_message(ChatMessage.assistant("old reply"))
    summary = CompactionSummary(
        original_request="old request", entry_count=2, tokens_compacted=11, notes="Did things."
    )
    compaction = session.append_payload(
        CompactionPayload(summary=summary, first_kept=second.id, tokens_before=11)
    )
    for entry in (first, second):
        session.set_resolution(entry.id, Compacted(into=compaction.id))
    branch = session.append_payload(
        BranchSummaryPayload(summary=CompactionSummary(notes="abandoned"), from_id=first.id)
    )
    session.append_payload(
        CustomMessagePayload(kind="acme.note.v1", content=[{"Text": {"text": "remember this"}}])
    )
    stats = ContextMeter(context_window=1000, completion_reserve=0).stats(session)

    compaction_tokens = reference_tokens(ChatMessage.user(summary.render()))
    branch_tokens = reference_tokens(ChatMessage.user(branch.payload.summary.render()))
    custom_tokens = reference_tokens(ChatMessage.user("remember this"))
    assert stats.compaction_tokens == compaction_tokens + branch_tokens
    assert stats.compacted_entry_count == 2
    assert stats.role_tokens["user"] == compaction_tokens + branch_tokens + custom_tokens
    assert stats.resolution_tokens["full"] == stats.estimated_used
    assert stats.phase_tokens["unclassified"] == stats.estimated_used
    assert stats.message_count == 3
    assert stats.path_entry_count == 5


def test_outlined_compaction_counts_as_compaction(session: Session) -> None:
    entry = session.append_payload(CompactionPayload(first_kept="00000000"))
    session.set_resolution(entry.id, Outlined(outline="short"))
    stats = ContextMeter(context_window=1000, completion_reserve=0).stats(session)
    assert stats.compaction_tokens == stats.resolution_tokens["outlined"]
    assert stats.compaction_tokens == reference_tokens(ChatMessage.user("short"))


# ── the cache ───────────────────────────────────────────────────────────────


def fresh_stats(session: Session, meter: ContextMeter) -> ContextStats:
    """The statistics recomputed from scratch: nothing estimated or added up before (what
    the session keeps is set aside meanwhile, and put back)."""
    estimates = estimates_module._ESTIMATES.pop(session, None)
    tally = stats_module._TALLIES.pop(session, None)
    try:
        return ContextMeter(
            context_window=meter.context_window,
            completion_reserve=meter.completion_reserve,
            tool_phases=meter.tool_phases,
            overhead_tokens=meter.overhead_tokens,
        ).stats(session)
    finally:
        estimates_module._ESTIMATES.pop(session, None)
        stats_module._TALLIES.pop(session, None)
        if estimates is not None:
            estimates_module._ESTIMATES[session] = estimates
        if tally is not None:
            stats_module._TALLIES[session] = tally


def test_cache_follows_appends_branching_and_resolutions(session: Session) -> None:
    meter = ContextMeter(context_window=2000, completion_reserve=100, tool_phases=PHASES)
    build_conversation(session)
    assert meter.stats(session) == fresh_stats(session, meter)
    entries = session.path_entries()

    session.append_message(ChatMessage.user("and now?"))
    assert meter.stats(session) == fresh_stats(session, meter)

    session.branch_to(entries[3].id)  # back to the read_file result
    branched = meter.stats(session)
    assert branched == fresh_stats(session, meter)
    assert branched.path_entry_count == 4
    assert branched.entry_count == 11  # 10 appended + the LeafMoved entry

    session.append_message(ChatMessage.assistant("Different route."))
    session.set_resolution(entries[2].id, Summarized(summary="Requested: read_file"))
    assert meter.stats(session) == fresh_stats(session, meter)

    session.set_resolution(entries[2].id, Outlined(outline="outline"))
    assert meter.stats(session) == fresh_stats(session, meter)
    session.set_resolution(entries[2].id, Outlined(outline="a different outline"))
    assert meter.stats(session) == fresh_stats(session, meter)

    session.clear()
    cleared = meter.stats(session)
    assert cleared == fresh_stats(session, meter)
    assert cleared.message_count == 1  # the system message


def test_meter_matches_path_messages_after_resume(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    with Session.create(project, home=home) as created:
        build_conversation(created)
        created.set_resolution(created.path_entries()[3].id, Outlined(outline="read it"))
        path = created.path
    assert path is not None
    meter = ContextMeter(context_window=4000, completion_reserve=100, tool_phases=PHASES)
    with Session.open(path) as resumed:
        stats = meter.stats(resumed)
        assert stats.estimated_used == sum(reference_tokens(m) for m in resumed.path_messages())
        assert stats.resolution_tokens["outlined"] > 0
    # A meter reused across sessions stays correct.
    other = Session.in_memory(project)
    other.append_message(ChatMessage.user("new session"))
    assert meter.stats(other) == fresh_stats(other, meter)


Op = tuple[str, int]

_OPS = (
    "user",
    "assistant_call",
    "tool",
    "text",
    "branch",
    "resolve",
    "compaction",
    "branch_summary",
    "clear",
    "resume",
)


def _apply(session: Session, kind: str, n: int) -> Session:
    """One change to `session` (the session to go on with: a resume reopens the file)."""
    entries = list(session.entries)
    resolutions: list[Callable[[int], object]] = [
        lambda n: Outlined(outline="o" * (n % 50)),
        lambda n: Summarized(summary="s" * (n % 20)),
        lambda n: PINNED,
        lambda n: Compacted(into="ffffffff"),
    ]
    if kind == "user":
        session.append_message(ChatMessage.user("u" * (n % 97)))
    elif kind == "assistant_call":
        name = ["read_file", "edit_file", "list_dir", "other"][n % 4]
        session.append_message(ChatMessage.assistant("", [call(f"c{n % 5}", name, "{}" * (n % 7))]))
    elif kind == "tool":
        session.append_message(ChatMessage.tool_result(f"c{n % 5}", "r" * (n % 300), False))
    elif kind == "text":
        session.append_message(ChatMessage.assistant("t" * (n % 60)))
    elif kind == "branch" and entries:
        session.branch_to(entries[n % len(entries)])
    elif kind == "resolve" and entries:
        session.set_resolution(entries[n % len(entries)], resolutions[n % 4](n))  # type: ignore[arg-type]
    elif kind == "compaction":
        summary = CompactionSummary(notes="n" * (n % 40), entry_count=n % 9)
        session.append_payload(CompactionPayload(summary=summary, first_kept="00000000"))
    elif kind == "branch_summary" and entries:
        summary = CompactionSummary(notes="b" * (n % 30))
        session.branch_with_summary(entries[n % len(entries)], summary)
    elif kind == "clear" and entries:
        session.clear()
    elif kind == "resume" and session.written and session.path is not None:
        path = session.path
        session.close()
        return Session.open(path)
    return session


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.sampled_from(_OPS), st.integers(min_value=0, max_value=1000)),
        max_size=40,
    )
)
def test_kept_statistics_always_equal_a_recomputation_from_scratch(
    tmp_path_factory: pytest.TempPathFactory, ops: list[Op]
) -> None:
    """Appends, branches (with and without a summary), resolution changes, compactions,
    clears and resumes (whose estimates are made while the file is read), in any order: the
    statistics kept with the session always equal the statistics made from nothing, and the
    estimate of the path's messages."""
    project = tmp_path_factory.mktemp("project")
    session = Session.create(project, home=project / "home")
    session.append_message(ChatMessage.system("You are rho."))
    meter = ContextMeter(context_window=3000, completion_reserve=500, tool_phases=PHASES)
    try:
        for kind, n in ops:
            session = _apply(session, kind, n)
            stats = meter.stats(session)
            assert stats == fresh_stats(session, meter), (kind, n)
            assert stats.estimated_used == sum(reference_tokens(m) for m in session.path_messages())
            assert sum(stats.role_tokens.values()) == stats.estimated_used
            assert sum(stats.phase_tokens.values()) == stats.estimated_used
            assert sum(stats.resolution_tokens.values()) == stats.estimated_used
    finally:
        session.close()


def test_second_call_on_large_session_does_not_re_estimate(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    original = estimates_module.approximate_tokens

    def counting(message: ChatMessage) -> int:
        nonlocal calls
        calls += 1
        return original(message)

    monkeypatch.setattr(estimates_module, "approximate_tokens", counting)
    session.append_message(ChatMessage.system("system"))
    for i in range(1666):
        session.append_message(ChatMessage.assistant("", [call(f"c{i}", "read_file", "{}")]))
        session.append_message(ChatMessage.tool_result(f"c{i}", "line\n" * 20, False))
        session.append_message(ChatMessage.user(f"next {i}"))
    session.append_payload(ModelChangePayload(model="m"))  # not rendered
    assert session.entry_count == 5000

    meter = ContextMeter(context_window=1_000_000, completion_reserve=0, tool_phases=PHASES)
    first = meter.stats(session)
    assert calls == 4999  # every rendered entry once
    assert first.message_count == 4999

    calls = 0
    second = meter.stats(session)
    meter.stats(session)
    assert calls == 0
    assert second == first

    session.append_message(ChatMessage.assistant("done"))
    third = meter.stats(session)
    assert calls == 1
    assert third.estimated_used == first.estimated_used + original(ChatMessage.assistant("done"))

    calls = 0
    target = session.path_entries()[2]
    session.set_resolution(target.id, Outlined(outline="read_file: x (20 lines)"))
    meter.stats(session)
    assert calls == 1


def test_warmed_estimates_are_shared_by_every_meter_of_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    original = estimates_module.approximate_tokens

    def counting(message: ChatMessage) -> int:
        nonlocal calls
        calls += 1
        return original(message)

    monkeypatch.setattr(estimates_module, "approximate_tokens", counting)
    session = Session.in_memory(tmp_path)
    build_conversation(session)
    stats_module.warm_estimates(session)
    assert calls == 9
    first = ContextMeter(context_window=1000, completion_reserve=200, tool_phases=PHASES)
    stats = first.stats(session)
    rebuilt = ContextMeter(context_window=4000, completion_reserve=100, tool_phases=PHASES)
    assert rebuilt.stats(session).role_tokens == stats.role_tokens
    assert calls == 9  # a meter rebuilt (new budget) estimates nothing again
    assert stats == fresh_stats(session, first)
