"""Progress on stderr when stdout is not a terminal: one line per tool call, retry and
compaction, so that stdout holds the reply alone.

Each line is one line of text: what identifies a call (its tool, its key argument) has its
control characters written as escapes, so the line says exactly what ran; the first line of
a failed call's output has its control sequences (colours, titles) removed first, as a
terminal would have shown it.
"""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING

from rho_kernel import Observer, ToolResult, escape_controls
from rho_rpc.execute.controls import strip_controls

if TYPE_CHECKING:
    from rho_kernel import ContextCompacted

#: The arguments that say best what a call does, in order of preference.
KEY_ARGUMENTS = ("path", "command", "pattern", "query", "name", "url")
#: The longest key argument shown.
MAX_SHOWN = 80


def call_label(name: str, arguments: str) -> str:
    """A call in a few words: the tool and its key argument."""
    try:
        decoded = json.loads(arguments)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        for key in KEY_ARGUMENTS:
            value = decoded.get(key)
            if isinstance(value, str) and value:
                shown = " ".join(value.split())
                shown = shown if len(shown) <= MAX_SHOWN else shown[: MAX_SHOWN - 1] + "…"
                return escape_controls(f"{name} {shown}")
    return escape_controls(name)


class PlainProgress(Observer):
    """Writes what a turn does to `stream` (stderr), a line at a time (retries and
    compactions included: the loop does not say them again)."""

    shows_progress = True

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self._calls: dict[str, str] = {}

    def _line(self, text: str) -> None:
        self.stream.write(f"rho: {text}\n")
        self.stream.flush()

    async def on_tool_call(self, name: str, arguments: str, call_id: str | None = None) -> None:
        label = call_label(name, arguments)
        self._calls[call_id or name] = label
        self._line(f"→ {label}")

    async def on_tool_result(
        self,
        name: str,
        result: ToolResult,
        call_id: str | None = None,
        full_output: str | None = None,
    ) -> None:
        label = self._calls.pop(call_id or name, escape_controls(name))
        if result.is_error:
            first = escape_controls(strip_controls(result.output).strip().split("\n", 1)[0])
            first = first[:200]
            self._line(f"✗ {label}: {first}")
        else:
            self._line(f"✓ {label}")

    async def on_retry(self, attempt: int, max_attempts: int, delay: float, reason: str) -> None:
        self._line(f"↻ retry {attempt}/{max_attempts} in {delay:.1f} s: {escape_controls(reason)}")

    async def on_context_compacted(self, compaction: ContextCompacted) -> None:
        self._line(
            f"⇣ compacted {compaction.entries_compacted} entries ({compaction.tokens_before} → "
            f"{compaction.tokens_after} tokens, {compaction.strategy})"
        )


__all__ = ["KEY_ARGUMENTS", "PlainProgress", "call_label"]
