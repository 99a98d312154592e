"""session_summary reads the in-memory session: its real entries, not role-keyed lines."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.security import SandboxRoot
from rho_kernel.session.entries import CompactionPayload, CompactionSummary, LabelPayload
from rho_kernel.session.store import Session
from rho_kernel.tools import ToolContext, ToolResult
from rho_tools_fs.session_summary import session_summary


async def summary(root: Path, session: Session | None) -> ToolResult:
    ctx = ToolContext(
        root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken(), session=session
    )
    return await session_summary.execute({}, ctx)


def call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


async def test_lists_turns_with_tool_calls_and_results(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    session.append_message(ChatMessage.system("You are rho."))
    session.append_message(ChatMessage.user("Fix   the\nbug"))
    session.append_message(
        ChatMessage.assistant("Looking.", [call("c1", "read_file", '{"path": "src/main.rs"}')])
    )
    session.append_message(ChatMessage.tool_result("c1", "<context>\n1#AAAA:fn main", False))
    session.append_payload(LabelPayload(target_id="x", label="mark"))
    session.append_message(ChatMessage.assistant("", [call("c2", "write_file", "{" + "x" * 100)]))
    session.append_message(ChatMessage.tool_result("c2", "\nwrite_file: denied", True))
    session.append_payload(
        CompactionPayload(summary=CompactionSummary(entry_count=7), first_kept="x")
    )
    result = await summary(tmp_path, session)
    assert result.output.split("\n") == [
        "Session history (7 entries, showing last 7):",
        "   1. [system] You are rho.",
        "   2. [user] Fix the bug",
        '   3. [assistant] Looking. → read_file({"path": "src/main.rs"})',
        "   4. [tool] read_file ok: <context>",
        "   5. [assistant] → write_file({" + "x" * 58 + "…)",
        "   6. [tool] write_file error: write_file: denied",
        "   7. [compaction] 7 earlier entries summarized",
    ]
    assert session_summary.outline({}, result) == (
        "session_summary: Session history (7 entries, showing last 7)"
    )


async def test_shows_the_last_50_and_cuts_lines_at_200(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    for number in range(60):
        session.append_message(ChatMessage.user(f"message {number} " + "y" * 300))
    lines = (await summary(tmp_path, session)).output.split("\n")
    assert lines[0] == "Session history (60 entries, showing last 50):"
    assert len(lines) == 51
    assert lines[1].startswith("  11. [user] message 10 ")
    assert all(len(line) <= 200 for line in lines) and lines[1].endswith("…")


async def test_empty_and_missing_sessions(tmp_path: Path) -> None:
    assert (await summary(tmp_path, Session.in_memory(tmp_path))).output == (
        "Session is empty (no entries)."
    )
    missing = await summary(tmp_path, None)
    assert missing.is_error and missing.output == "session_summary: no session is running"
