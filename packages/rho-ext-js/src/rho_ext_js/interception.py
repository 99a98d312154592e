"""Extension hooks in the agent loop: `onToolCall` may block or modify a call, through the
kernel's `rho_before_tool_call` (answered asynchronously); `onToolResult` sees every result
through `rho_after_tool_call`. Registered as a plugin object when extensions start; the
manager is looked up at each call (there is none until an extension is found)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rho_ext_js.running import current_manager
from rho_kernel import ToolCall, ToolResult, hookimpl
from rho_kernel.tools import Block, Rewrite, apply_interception

if TYPE_CHECKING:
    from rho_ext_js.manager import ExtensionManager
    from rho_kernel import Runtime

#: The name the hooks object is registered under.
HOOKS_PLUGIN = "rho-ext-js.hooks"


class ExtensionHooks:
    """The loop hooks of the runtime's extensions, in name order."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    @property
    def manager(self) -> ExtensionManager:
        """The extension manager (only asked for once `_with` found listeners)."""
        manager = current_manager(self.runtime)
        assert manager is not None
        return manager

    def _with(self, hook: str) -> list[Any]:
        manager = current_manager(self.runtime)
        if manager is None:
            return []
        return [e for e in manager.loaded() if e.manifest is not None and hook in e.manifest.hooks]

    @hookimpl
    def rho_before_tool_call(self, call: ToolCall, arguments: dict[str, Any]) -> Any:
        """Ask each `onToolCall`: `{action: "block", reason}` refuses the call, `{action:
        "modify", arguments}` changes it (later extensions see the change); anything else
        lets it run."""
        listeners = self._with("onToolCall")
        return self._ask(listeners, call, arguments) if listeners else None

    async def _ask(self, listeners: list[Any], call: ToolCall, arguments: dict[str, Any]) -> Any:
        current = arguments  # never changed in place: `is` tells whether one was modified
        for extension in listeners:
            payload = json.dumps({"toolName": call.name, "arguments": json.dumps(current)})
            answer = await self.manager.call_hook(extension, "onToolCall", payload)
            step = apply_interception(current, self._interception(extension, answer))
            if isinstance(step, Block):
                return step
            current = step
        return None if current is arguments else Rewrite(current)

    def _interception(self, extension: Any, answer: Any) -> Block | Rewrite | None:
        """An `onToolCall` answer as what a `rho_before_tool_call` implementation returns."""
        action = answer.get("action") if isinstance(answer, dict) else None
        name = extension.source.name
        if action == "block":
            reason = str(answer.get("reason") or "no reason given")[:500]
            return Block(f"{reason} (extension {name})")
        if action != "modify":
            return None
        replaced = arguments_of(answer)
        if replaced is None:
            self.manager.report(
                f"extension {name}: onToolCall modify without an arguments object (ignored)"
            )
            return None
        return Rewrite(replaced)

    @hookimpl
    def rho_after_tool_call(self, call: ToolCall, result: ToolResult) -> Any:
        """Tell each `onToolResult` about the result (it cannot change it)."""
        listeners = self._with("onToolResult")
        return self._tell(listeners, call, result) if listeners else None

    async def _tell(self, listeners: list[Any], call: ToolCall, result: ToolResult) -> None:
        payload = json.dumps(
            {"toolName": call.name, "output": result.output, "isError": result.is_error}
        )
        for extension in listeners:
            await self.manager.call_hook(extension, "onToolResult", payload)


def arguments_of(answer: Any) -> dict[str, Any] | None:
    """The arguments of an `onToolCall` answer `{action: "modify", arguments}` (an object, or
    the JSON text of one), or None when they are not an object."""
    value = answer.get("arguments") if isinstance(answer, dict) else None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


__all__ = ["HOOKS_PLUGIN", "ExtensionHooks", "arguments_of"]
