"""The registry of tools the model can call, each attributed to the plugin that gave it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from rho_kernel import diagnostics
from rho_kernel.tools.base import Tool


class DuplicateToolError(Exception):
    """Two plugins contributed a tool with the same name."""


class ToolRegistry:
    """Maps tool names to tools and remembers which plugin contributed each."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._owners: dict[str, str] = {}
        self._schemas: list[dict[str, Any]] | None = None

    def register(self, tool: Tool, plugin: str = "<unknown>") -> None:
        """Add a tool; a name already taken raises `DuplicateToolError` naming both plugins."""
        if not isinstance(tool, Tool):
            raise TypeError(f"plugin '{plugin}' contributed {tool!r}, which is not a Tool")
        if not tool.name:
            raise TypeError(f"plugin '{plugin}' contributed a tool without a name")
        if tool.name in self._tools:
            raise DuplicateToolError(
                f"tool '{tool.name}' is contributed by both plugin '{self._owners[tool.name]}' "
                f"and plugin '{plugin}'; disable one of them with [plugins] disabled = [...]"
            )
        self._tools[tool.name] = tool
        self._owners[tool.name] = plugin
        self._schemas = None

    def unregister(self, name: str) -> None:
        """Remove a tool by name (no error when absent)."""
        self._tools.pop(name, None)
        self._owners.pop(name, None)
        self._schemas = None

    def prepare(self, report: Callable[[str], None]) -> None:
        """Build every tool's schema now; a tool whose schema cannot be built is removed and
        reported (a broken tool is skipped, as a broken plugin is). Idempotent."""
        if self._schemas is not None:
            return
        schemas: list[dict[str, Any]] = []
        for name, tool in list(self._tools.items()):
            try:
                schemas.append(tool.schema())
            except Exception as exc:
                report(
                    f"tool '{name}' of plugin '{self._owners.get(name)}' skipped: its "
                    f"parameters cannot be described: {' '.join(str(exc).split())[:300]}"
                )
                self.unregister(name)
        self._schemas = schemas

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def owner(self, name: str) -> str | None:
        """The plugin that contributed `name`."""
        return self._owners.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """Tool definitions for the model, in registration order (cached until a change)."""
        if self._schemas is None:
            self.prepare(diagnostics.warn)
        assert self._schemas is not None
        return self._schemas


__all__ = ["DuplicateToolError", "ToolRegistry"]
