"""Small state machines the loop consults: phase tracking and stuck-loop detection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.tools.base import Phase, ToolResult

if TYPE_CHECKING:
    from rho_kernel.tools.base import Tool

STUCK_PREFIX = "STUCK LOOP DETECTED:"


class PhaseTracker:
    """The phase of work, moved by each executed tool's declared phase.

    Exploration never downgrades execution or verification; verification before any edit
    (execution) is still exploration; a final text reply concludes.
    """

    def __init__(self) -> None:
        self.current: Phase | None = None
        self.has_edits = False

    def record(self, phase: Phase | None) -> Phase | None:
        """Account for a tool of `phase` (None: the tool does not move the phase)."""
        if phase is None:
            return self.current
        if phase is Phase.EXECUTION:
            self.has_edits = True
        elif phase is Phase.VERIFICATION and not self.has_edits:
            phase = Phase.EXPLORATION
        if phase is Phase.EXPLORATION and self.current in (Phase.EXECUTION, Phase.VERIFICATION):
            return self.current
        self.current = phase
        return phase

    def conclude(self) -> None:
        """The model answered with text: the conclusion phase (absorbing)."""
        self.current = Phase.CONCLUSION


class StuckLoopDetector:
    """Replaces the result of a call repeated with identical arguments and output.

    After `threshold` consecutive identical (tool, arguments, output) results, the model gets
    an error result starting with `STUCK LOOP DETECTED:` instead, and counting starts over.
    A threshold of 0 disables the check. For a tool that declares `fresh_process_per_call`
    the nudge adds that nothing (a `cd`) carries over between its calls.
    """

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self._last: tuple[str, str, str, bool] | None = None
        self.streak = 0

    def check(
        self, name: str, arguments: str, result: ToolResult, tool: Tool | None = None
    ) -> ToolResult:
        """The result to keep for this call of `tool` (the original, or the nudge)."""
        if self.threshold <= 0:
            return result
        key = (name, arguments, result.output, result.is_error)
        self.streak = self.streak + 1 if key == self._last else 1
        self._last = key
        if self.streak < self.threshold:
            return result
        self.streak = 0
        self._last = None
        return ToolResult.error(_nudge(name, self.threshold, tool), details=result.details)


def _nudge(name: str, count: int, tool: Tool | None) -> str:
    text = (
        f"{STUCK_PREFIX} `{name}` was called {count} times in a row with the same arguments "
        "and returned the same output each time. Repeating it will not change the result. "
        "Step back: re-read the error or output above, then try a different approach "
        "(other arguments, another tool, or explain to the user what is blocking you)."
    )
    if tool is not None and tool.fresh_process_per_call:
        text += f" Each {name} starts a fresh process in the project root: {_instead_of_cd(tool)}"
    return text


def _instead_of_cd(tool: Tool) -> str:
    """The advice for a fresh-process tool: its `cwd` parameter (if it has one) or full paths."""
    parameters = tool.parameters
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    has_cwd = isinstance(properties, dict) and "cwd" in properties
    way = "use the `cwd` parameter or full paths" if has_cwd else "use full paths"
    return f"{way} instead of `cd`, and edit files before re-running."


__all__ = ["STUCK_PREFIX", "PhaseTracker", "StuckLoopDetector"]
