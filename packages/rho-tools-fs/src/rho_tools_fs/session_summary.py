"""The `session_summary` tool: the last turns of the running conversation, one line each.

It reads the session the loop keeps in memory (`ctx.session`): the entries on the path from
the root to the current leaf, in order — user and assistant text, the tool calls an
assistant made (`name(args…)`), each tool result as ok/error with its first line, and
compaction summaries. Nothing is re-read from disk.
"""

from __future__ import annotations

from typing import Any

from rho_kernel import ChatMessage
from rho_kernel.session import (
    BranchSummaryPayload,
    CompactionPayload,
    CustomMessagePayload,
    Entry,
    MessagePayload,
    ModelChangePayload,
)
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool

#: The summary shows at most this many entries (the latest).
MAX_SUMMARIES = 50
#: Every line is cut to this many characters.
MAX_LINE_CHARS = 200
#: Tool-call arguments are shown up to this many characters.
MAX_ARGUMENT_CHARS = 60


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no output)"


def _message_summary(message: ChatMessage, tool_names: dict[str, str]) -> str:
    text = _one_line(message.text)
    if message.role == "assistant":
        calls = [
            f"{call.name}({_cut(_one_line(call.arguments), MAX_ARGUMENT_CHARS)})"
            for call in message.tool_calls or ()
        ]
        if not calls:
            return f"[assistant] {text or '(no text)'}"
        for call in message.tool_calls or ():
            tool_names[call.id] = call.name
        prefix = f"[assistant] {_cut(text, 80)} " if text else "[assistant] "
        return prefix + "→ " + ", ".join(calls)
    if message.role == "tool":
        name = tool_names.get(message.tool_call_id or "", "tool")
        status = "error" if message.is_error else "ok"
        return f"[tool] {name} {status}: {_first_line(message.text)}"
    return f"[{message.role}] {text or '(no text)'}"


def summarize_entry(entry: Entry, tool_names: dict[str, str]) -> str | None:
    """One line for an entry on the path, or None for metadata (labels, leaf moves, …).

    `tool_names` maps tool-call ids to tool names; assistant entries add to it so later
    tool results can be named.
    """
    payload = entry.payload
    if isinstance(payload, MessagePayload):
        return _message_summary(payload.message, tool_names)
    if isinstance(payload, CompactionPayload):
        return f"[compaction] {payload.summary.entry_count} earlier entries summarized"
    if isinstance(payload, BranchSummaryPayload):
        return f"[branch summary] {payload.summary.entry_count} entries of another branch"
    if isinstance(payload, CustomMessagePayload):
        return f"[{payload.kind}] {_one_line(payload.text)}"
    if isinstance(payload, ModelChangePayload):
        return f"[model] switched to {payload.model}"
    return None


def summarize(entries: list[Entry]) -> str:
    """The whole tool output for the entries of a path."""
    tool_names: dict[str, str] = {}
    summaries = [s for s in (summarize_entry(e, tool_names) for e in entries) if s is not None]
    if not summaries:
        return "Session is empty (no entries)."
    first = max(len(summaries) - MAX_SUMMARIES, 0)
    lines = [
        _cut(f"{number:>4}. {summary}", MAX_LINE_CHARS)
        for number, summary in enumerate(summaries[first:], first + 1)
    ]
    header = f"Session history ({len(summaries)} entries, showing last {len(lines)}):"
    return header + "\n" + "\n".join(lines)


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    if result.is_error:
        return "session_summary: error"
    return "session_summary: " + result.output.split("\n", 1)[0].rstrip(":")


@tool(risk=Risk.READ, phase=Phase.EXPLORATION, outline=_outline)
async def session_summary(*, ctx: ToolContext) -> ToolResult:
    """The conversation so far, one numbered line per turn (the last 50): messages, tool calls
    (`name(args…)`) and whether each result was ok or an error, with its first line. Use it
    when you lost track of earlier turns (old ones may have been shortened).
    """
    if ctx.session is None:
        return ToolResult.error("session_summary: no session is running")
    return ToolResult(summarize(ctx.session.path_entries()))


__all__ = ["MAX_LINE_CHARS", "MAX_SUMMARIES", "session_summary", "summarize", "summarize_entry"]
