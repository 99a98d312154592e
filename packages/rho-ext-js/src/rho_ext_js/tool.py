"""`ExtensionTool`: a tool an extension declares, in rho's registry like any other.

Its risk is the one the manifest declares (approval applies as to every tool); `execute`
receives the arguments as a JSON string, as in the book, and may return a string or an
object (sent to the model as JSON). Inside the call the extension may do what that risk
allows (see `rho_ext_js.calls`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rho_ext_js.calls import CallContext
from rho_kernel import Phase, Tool, ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from rho_ext_js.manager import ExtensionManager
    from rho_ext_js.manifest import ToolSpec


class ExtensionTool(Tool):
    """Tool `spec.name` of extension `extension`, run by its isolate."""

    def __init__(self, manager: ExtensionManager, extension: str, spec: ToolSpec) -> None:
        self.manager = manager
        self.extension = extension
        self.name = spec.name
        self.description = spec.description
        self.parameters = spec.parameters
        self.risk = spec.risk
        self.phase: Phase | None = None

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        context = CallContext("tool", f"tool {self.name}", allowed=self.risk, tool=ctx)
        value, note = await self.manager.run_tool(
            self.extension, self.name, json.dumps(args), context
        )
        output = self._text(value)
        return ToolResult(f"{note}\n{output}" if note else output)

    def _text(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ToolError(f"{self.name}: the extension returned no JSON value ({exc})") from None

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """`{tool} ({extension}): {first line}`."""
        first = result.output.strip().splitlines()[0] if result.output.strip() else ""
        return f"{self.name} ({self.extension}): {first[:120]}"


__all__ = ["ExtensionTool"]
