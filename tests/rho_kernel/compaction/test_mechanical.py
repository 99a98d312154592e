"""The mechanical summary: phase segments, folding earlier summaries, bounded size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_kernel.compaction import MechanicalStrategy, mechanical_summary, summary_tokens
from rho_kernel.compaction.mechanical import argument_summary, finding
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.compaction import CompactionRequest
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session import CompactionPayload, CompactionPhase, CompactionSummary, Session

PHASES = {
    "read_file": "exploration",
    "write_file": "execution",
    "run_tests": "verification",
    "memory": None,
}


def tool_turn(session: Session, call_id: str, name: str, output: str, **arguments: Any) -> None:
    call = ToolCall(id=call_id, function=FunctionCall(name=name, arguments=json.dumps(arguments)))
    session.append_message(ChatMessage.assistant("", [call]))
    session.append_message(ChatMessage.tool_result(call_id, output, output.startswith("E")))


def _work(project: Path) -> Session:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.user("fix the parser"))
    tool_turn(session, "1", "read_file", "def parse(): ...\nmore", path="src/parser.py")
    tool_turn(session, "2", "read_file", "x", path="src/lexer.py")
    tool_turn(session, "3", "read_file", "x", path="src/parser.py")
    tool_turn(session, "4", "write_file", "wrote 3 lines", path="src/parser.py")
    tool_turn(session, "5", "read_file", "x", path="src/parser.py")  # stays in execution
    tool_turn(session, "6", "run_tests", "E 1 failed\ntrace", command="pytest")
    session.append_message(ChatMessage.user("also add a test"))
    session.append_message(ChatMessage.assistant("Fixed the parser; one test still fails."))
    return session


def test_tool_calls_are_grouped_by_the_phase_their_tool_declares(project: Path) -> None:
    summary = mechanical_summary(_work(project).path_entries(), PHASES)
    assert [p.phase for p in summary.phases] == [
        "exploration",
        "execution",
        "verification",
        "conclusion",
    ]
    exploration, execution, verification, conclusion = summary.phases
    assert exploration.tool_calls == {"read_file": ["src/parser.py (×2)", "src/lexer.py"]}
    assert exploration.user_messages == ["fix the parser"]
    assert execution.tool_calls == {"write_file": ["src/parser.py"], "read_file": ["src/parser.py"]}
    assert verification.key_findings == {"run_tests": ["error: E 1 failed (2 lines)"]}
    assert verification.user_messages == ["also add a test"]
    assert conclusion.key_findings == {"reply": ["Fixed the parser; one test still fails."]}
    assert summary.original_request == "fix the parser"
    assert summary.current_request == "also add a test"


def test_the_summary_renders_one_line_per_phase(project: Path) -> None:
    text = mechanical_summary(_work(project).path_entries(), PHASES).render()
    lines = text.splitlines()
    assert lines[1] == 'Current request: "also add a test"'
    assert lines[2] == 'Initial request: "fix the parser"'
    assert "**Exploration:** read_file: src/parser.py (×2), src/lexer.py." in text
    assert (
        "**Verification:** run_tests: pytest. Found: run_tests: error: E 1 failed (2 lines)."
        in text
    )
    assert "**Conclusion:** Found: reply: Fixed the parser; one test still fails." in lines
    assert lines[3] == 'User: "fix the parser"'
    assert lines[4].startswith("**Exploration:** read_file:")
    assert (
        lines.index('User: "also add a test"')
        == lines.index(next(line for line in lines if line.startswith("**Verification:**"))) - 1
    )


def test_a_request_after_an_answer_starts_a_new_exploration(project: Path) -> None:
    session = Session.in_memory(project)
    session.append_message(ChatMessage.user("one"))
    tool_turn(session, "1", "write_file", "ok", path="a.py")
    session.append_message(ChatMessage.assistant("done"))
    session.append_message(ChatMessage.user("two"))
    tool_turn(session, "2", "read_file", "x", path="b.py")
    phases = mechanical_summary(session.path_entries(), PHASES).phases
    assert [(p.phase, p.user_messages) for p in phases] == [
        ("exploration", ["one"]),
        ("execution", []),
        ("conclusion", []),
        ("exploration", ["two"]),
    ]


def test_an_earlier_summary_is_folded_in_first(project: Path) -> None:
    earlier = CompactionSummary(
        original_request="the first request",
        phases=[CompactionPhase(phase="exploration", tool_calls={"read_file": ["old.py"]})],
        notes="model notes",
    )
    session = Session.in_memory(project)
    session.append_payload(CompactionPayload(summary=earlier, first_kept="x"))
    tool_turn(session, "1", "write_file", "ok", path="new.py")
    summary = mechanical_summary(session.path_entries(), PHASES)
    assert summary.original_request == "the first request"
    assert [p.phase for p in summary.phases] == ["exploration", "execution"]
    assert summary.phases[0].tool_calls == {"read_file": ["old.py"]}
    assert summary.notes == "model notes"


def test_many_arguments_of_one_tool_are_capped(project: Path) -> None:
    session = Session.in_memory(project)
    for index in range(20):
        tool_turn(session, str(index), "read_file", "x", path=f"f{index}.py")
    (phase,) = mechanical_summary(session.path_entries(), PHASES).phases
    assert phase.tool_calls["read_file"][-1] == "… +13 more"
    assert len(phase.tool_calls["read_file"]) == 8
    assert len(phase.key_findings["read_file"]) == 3


def test_old_segments_are_dropped_to_fit_and_say_so(project: Path) -> None:
    session = Session.in_memory(project)
    for index in range(60):
        tool = "write_file" if index % 2 else "run_tests"
        tool_turn(session, str(index), tool, "ok " * 20, path=f"file{index}.py")
    capped = mechanical_summary(session.path_entries(), PHASES)
    assert len(capped.phases) == 40
    assert capped.notes is not None and capped.notes.startswith("(20 older phase segments")
    small = mechanical_summary(
        session.path_entries(), PHASES, max_tokens=300, estimate=summary_tokens
    )
    assert summary_tokens(small) <= 300
    assert small.phases[-1] == capped.phases[-1]


def test_arguments_and_findings_are_short_single_lines() -> None:
    assert argument_summary('{"command": "cargo\\n test", "timeout": 5}') == "cargo test"
    assert argument_summary('{"limit": 5}') == '{"limit": 5}'
    assert argument_summary("not json") == "not json"
    assert argument_summary("") == ""
    assert len(argument_summary(json.dumps({"path": "a" * 500}))) == 80
    assert finding("\n\n  first line  \nsecond", False) == "first line (2 lines)"
    assert finding("<context>\nbody\n<context:end>", False) == "body"
    assert finding("", True) == "error"
    assert len(finding("e" * 1000, True)) == 150


async def test_the_mechanical_strategy_returns_the_mechanical_summary(project: Path) -> None:
    summary = CompactionSummary(notes="n")
    request = CompactionRequest(entries=[], mechanical=summary, config=RhoConfig())
    assert await MechanicalStrategy().summarize(request) is summary
