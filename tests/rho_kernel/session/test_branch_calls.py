"""Moving the leaf into a group of tool calls closes the calls left without a result."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import CANCELLED_TOOL_CALL, Session


def calls(*ids: str) -> ChatMessage:
    return ChatMessage.assistant(
        "",
        tool_calls=[
            ToolCall(id=call_id, function=FunctionCall(name="read_file", arguments="{}"))
            for call_id in ids
        ],
    )


def well_formed(messages: list[ChatMessage]) -> bool:
    pending: set[str] = set()
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id not in pending:
                return False
            pending.discard(message.tool_call_id)
            continue
        if pending:
            return False
        if message.role == "assistant":
            pending = {call.id for call in message.tool_calls or ()}
    return not pending


def build(session: Session) -> dict[str, str]:
    ids = {"system": session.append_message(ChatMessage.system("sys")).id}
    ids["ask"] = session.append_message(ChatMessage.user("read")).id
    ids["three"] = session.append_message(calls("c1", "c2", "c3")).id
    for call_id in ("c1", "c2", "c3"):
        ids[call_id] = session.append_message(ChatMessage.tool_result(call_id, "ok", False)).id
    ids["reply"] = session.append_message(ChatMessage.assistant("done")).id
    return ids


def test_branching_onto_calls_closes_them_and_the_last_result_is_the_leaf(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    ids = build(session)
    assert session.branch_to(ids["three"]) == 3
    tail = session.path_messages()[-3:]
    assert [(m.tool_call_id, m.text, m.is_error) for m in tail] == [
        ("c1", CANCELLED_TOOL_CALL, True),
        ("c2", CANCELLED_TOOL_CALL, True),
        ("c3", CANCELLED_TOOL_CALL, True),
    ]
    assert session.leaf_id == session.path_entries()[-1].id != ids["three"]
    assert session.branch_to(ids["c1"]) == 2  # partially answered: c2 and c3
    assert [m.tool_call_id for m in session.path_messages()[-3:]] == ["c1", "c2", "c3"]
    assert session.branch_to(ids["c3"]) == 0 and session.leaf_id == ids["c3"]
    assert session.branch_to(ids["reply"]) == 0
    assert session.branch_to(ids["system"]) == 0


def test_closing_is_written_and_survives_a_resume(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "project", home=tmp_path / "home")
    ids = build(session)
    session.branch_to(ids["c2"])
    leaf = session.leaf_id
    session.close()
    assert session.path is not None
    with Session.open(session.path) as resumed:
        assert resumed.leaf_id == leaf
        assert resumed.close_open_tool_calls() == 0
        assert well_formed(resumed.path_messages())


def test_a_fork_closes_the_calls_in_the_fork_only(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "project", home=tmp_path / "home")
    ids = build(session)
    entries = session.entry_count
    with session.fork(ids["three"]) as fork:
        assert fork.entry_count == 3 + 3
        assert well_formed(fork.path_messages())
        assert fork.written  # the results are entries after the system message
    assert session.entry_count == entries
    with session.fork(ids["c3"]) as fork:
        assert fork.leaf_id == ids["c3"]


def test_a_summary_comes_after_the_closed_calls(tmp_path: Path) -> None:
    from rho_kernel.session import summarize_branch

    session = Session.in_memory(tmp_path)
    ids = build(session)
    summary = summarize_branch(session.abandoned_by(ids["c1"]))
    written = session.branch_with_summary(ids["c1"], summary)
    session.append_message(ChatMessage.user("next"))
    messages = session.path_messages()
    assert well_formed(messages)
    assert session.entries[written.id].parent_id != ids["c1"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=200), min_size=1, max_size=12))
def test_any_sequence_of_moves_and_prompts_stays_well_formed(moves: list[int]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        session = Session.in_memory(Path(tmp))
        build(session)
        for step, move in enumerate(moves):
            targets = list(session.entries)
            target = targets[move % len(targets)]
            if move % 3 == 0:
                with session.fork(target) as fork:
                    fork.append_message(ChatMessage.user("in fork"))
                    assert well_formed(fork.path_messages())
                continue
            session.branch_to(target)
            session.append_message(ChatMessage.user(f"prompt {step}"))
            assert well_formed(session.path_messages())
            if move % 2:
                session.append_message(calls(f"x{step}", f"y{step}"))
