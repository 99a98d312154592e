"""An observer: counts the tool calls of a prompt and reports them on stderr at its end."""

from __future__ import annotations

from collections import Counter

from rho_kernel import AgentResult, Observer, ToolResult, diagnostics


class CallTally(Observer):
    """Counts the tool results of one prompt per tool and, when the prompt ends, writes
    `rho: tool calls: read_file 2, word_count 1` on stderr (stdout belongs to the protocol).

    Observers receive the loop's events; override only the ones you need, with the base
    class's signature. rho passes an event only the keyword arguments an override declares,
    so an observer keeps working as later versions give events new arguments.
    """

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    async def on_tool_result(
        self, name: str, result: ToolResult, call_id: str | None = None
    ) -> None:
        """Count the call (error results too)."""
        self.calls[name] += 1

    async def on_agent_end(self, result: AgentResult) -> None:
        """Report the tally; a prompt without tool calls reports nothing."""
        if self.calls:
            counts = ", ".join(f"{name} {count}" for name, count in sorted(self.calls.items()))
            diagnostics.info(f"tool calls: {counts}")
