"""Choosing what a compaction folds: turn boundaries, what is always kept, targets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_kernel.compaction import entry_tokens, plan_compaction, split_turns
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import PINNED, Compacted, LabelPayload, Session


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=json.dumps(arguments)))


def tool_turn(session: Session, call_id: str, name: str, output: str, **arguments: Any) -> None:
    session.append_message(ChatMessage.assistant("", [call(call_id, name, **arguments)]))
    session.append_message(ChatMessage.tool_result(call_id, output, False))


def _session(project: Path) -> Session:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.system("sys"))
    session.append_message(ChatMessage.user("fix the bug"))
    tool_turn(session, "c1", "read_file", "x" * 400, path="a.py")
    tool_turn(session, "c2", "read_file", "y" * 400, path="b.py")
    session.append_message(ChatMessage.assistant("done"))
    return session


def _ids(entries: list) -> list[str]:  # type: ignore[type-arg]
    return [entry.id for entry in entries]


def test_turns_keep_tool_calls_with_their_results(project: Path) -> None:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.user("go"))
    session.append_message(ChatMessage.assistant("", [call("a", "t"), call("b", "t")]))
    session.append_message(ChatMessage.tool_result("a", "1", False))
    session.append_custom("acme.state.v1", {"n": 1})
    session.append_message(ChatMessage.tool_result("b", "2", False))
    turns = split_turns(session.path_entries())
    assert [len(turn) for turn in turns] == [1, 4]


def test_every_turn_but_the_last_is_compacted_without_a_target(project: Path) -> None:
    session = _session(project)
    path = session.path_entries()
    plan = plan_compaction(path, entry_tokens, first_user_limit=1000)
    assert plan is not None
    assert plan.anchor is path[0]
    assert _ids(plan.preserved) == [path[1].id]  # the small first request stays verbatim
    assert _ids(plan.compacted) == _ids(path[2:6])
    assert _ids(plan.kept) == [path[6].id]
    assert plan.tokens_compacted == sum(entry_tokens(entry) for entry in path[2:6])
    assert plan.tokens_before == sum(entry_tokens(entry) for entry in path)


def test_a_large_first_request_is_compacted_too(project: Path) -> None:
    path = _session(project).path_entries()
    plan = plan_compaction(path, entry_tokens, first_user_limit=1)
    assert plan is not None
    assert plan.preserved == []
    assert plan.compacted[0] is path[1]


def test_a_target_compacts_only_the_oldest_turns(project: Path) -> None:
    path = _session(project).path_entries()
    plan = plan_compaction(path, entry_tokens, target_tokens=50, first_user_limit=1000)
    assert plan is not None
    assert _ids(plan.compacted) == _ids(path[2:4])  # one tool turn covers the target
    assert _ids(plan.kept) == _ids(path[4:])


def test_a_cut_never_separates_a_call_from_its_result(project: Path) -> None:
    path = _session(project).path_entries()
    for target in range(1, 400, 7):
        plan = plan_compaction(path, entry_tokens, target_tokens=target)
        assert plan is not None
        first_kept = plan.kept[0].message
        assert first_kept is not None and first_kept.role != "tool"


def test_pinned_turns_are_carried_over(project: Path) -> None:
    session = _session(project)
    path = session.path_entries()
    session.set_resolution(path[2].id, PINNED)
    path = session.path_entries()
    plan = plan_compaction(path, entry_tokens)
    assert plan is not None
    assert _ids(plan.preserved) == _ids(path[2:4])
    assert path[2].id not in _ids(plan.compacted)


def test_extension_state_is_carried_and_labels_are_not(project: Path) -> None:
    session = _session(project)
    custom = session.append_custom("acme.state.v1", {"n": 1})
    label = session.append_payload(LabelPayload(target_id=custom.id, label="here"))
    session.append_message(ChatMessage.user("next"))
    session.append_message(ChatMessage.assistant("ok"))
    plan = plan_compaction(session.path_entries(), entry_tokens)
    assert plan is not None
    assert custom.id in _ids(plan.preserved)
    assert custom.id not in _ids(plan.compacted)
    assert label.id not in _ids([*plan.preserved, *plan.compacted])


def test_only_the_last_turn_leaves_nothing_to_compact(project: Path) -> None:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.system("sys"))
    session.append_message(ChatMessage.user("hi"))
    assert plan_compaction(session.path_entries(), entry_tokens, first_user_limit=100) is None


def test_entries_already_compacted_are_left_out(project: Path) -> None:
    session = _session(project)
    path = session.path_entries()
    session.set_resolution(path[2].id, Compacted(into="zzzzzzzz"))
    plan = plan_compaction(session.path_entries(), entry_tokens)
    assert plan is not None
    assert path[2].id not in _ids([*plan.preserved, *plan.compacted, *plan.kept])


def test_a_path_without_a_system_message_has_no_anchor(project: Path) -> None:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.user("a"))
    session.append_message(ChatMessage.assistant("b"))
    session.append_message(ChatMessage.user("c"))
    plan = plan_compaction(session.path_entries(), entry_tokens)
    assert plan is not None
    assert plan.anchor is None
    assert len(plan.compacted) == 2
