"""The plugin's two tools: `word_count` (a function) and `Scratchpad` (a class with state)."""

from __future__ import annotations

from typing import Any

from rho_kernel import Phase, Risk, SandboxError, Tool, ToolContext, ToolError, ToolResult, tool

#: Read files in pieces of this size, so a huge file never sits in memory at once.
CHUNK_BYTES = 1 << 16


@tool(risk="read", phase="exploration")
def word_count(path: str, ctx: ToolContext) -> str:
    """Count the lines, words and bytes of a file in the project, like `wc`.

    Args:
        path: The file, relative to the project root.
    """
    lines = words = size = 0
    in_word = False
    try:
        # ctx.root opens only files inside the project, even through symlinks.
        with ctx.root.open_read(path) as handle:
            while chunk := handle.read(CHUNK_BYTES):
                if ctx.cancel.cancelled:
                    raise ToolError("word_count: cancelled")
                lines += chunk.count(b"\n")
                words += len(chunk.split())
                if in_word and not chunk[:1].isspace():
                    words -= 1  # a word split across two chunks was counted twice
                in_word = not chunk[-1:].isspace()
                size += len(chunk)
    except (SandboxError, OSError) as exc:
        raise ToolError(f"word_count: {exc}") from None
    return f"{path}: {lines} lines, {words} words, {size} bytes"


class Scratchpad(Tool):
    """Notes the model keeps for itself across calls and prompts, for as long as rho runs.

    One instance is registered at startup, so its notes are the tool's state. The model's
    arguments are hostile input: this tool checks them itself and keeps its memory bounded.
    """

    name = "scratchpad"
    description = (
        "Keep short notes across tool calls. Call it with `add` to write a note, with "
        "`clear: true` to forget every note, or with no arguments to read the notes."
    )
    parameters = {  # noqa: RUF012 (a class-level schema, never mutated)
        "type": "object",
        "properties": {
            "add": {"type": "string", "description": "A note to keep (at most 500 characters)."},
            "clear": {"type": "boolean", "description": "Forget every note first."},
        },
        "additionalProperties": False,
    }
    risk = Risk.READ  # it touches no file, process or network
    phase = Phase.EXPLORATION

    MAX_NOTE_CHARS = 500
    MAX_NOTES = 50

    def __init__(self) -> None:
        self.notes: list[str] = []

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Apply `clear`, then `add`, and answer with the notes kept."""
        unknown = sorted(set(args) - {"add", "clear"})
        if unknown:
            return ToolResult.error(f"scratchpad: unknown argument(s): {', '.join(unknown)}")
        add, clear = args.get("add"), args.get("clear", False)
        if add is not None and not isinstance(add, str):
            return ToolResult.error("scratchpad: `add` must be a string")
        if not isinstance(clear, bool):
            return ToolResult.error("scratchpad: `clear` must be true or false")
        if add is not None and not add.strip():
            return ToolResult.error("scratchpad: `add` must not be empty")
        if add is not None and len(add) > self.MAX_NOTE_CHARS:
            return ToolResult.error(
                f"scratchpad: a note holds at most {self.MAX_NOTE_CHARS} characters"
            )
        if clear:
            self.notes.clear()
        if add is not None:
            self.notes.append(add.strip())
            del self.notes[: -self.MAX_NOTES]  # the oldest notes go first
        return ToolResult(self._render(), details={"notes": list(self.notes)})

    def _render(self) -> str:
        if not self.notes:
            return "No notes."
        return "\n".join(f"{number}. {note}" for number, note in enumerate(self.notes, 1))

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """One line standing for the call when old turns are shrunk to fit the context."""
        count = len(result.details["notes"]) if isinstance(result.details, dict) else 0
        return f"scratchpad: {count} notes"
