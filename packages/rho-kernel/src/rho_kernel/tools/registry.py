"""The registry of tools the model can call, each attributed to the plugin that gave it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel import diagnostics, hookspecs
from rho_kernel.tools.base import Tool

if TYPE_CHECKING:
    from rho_kernel.config.model import RhoConfig
    from rho_kernel.plugins import PluginHost

#: What model APIs accept as a function name.
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class DuplicateToolError(Exception):
    """Two plugins contributed a tool with the same name."""


class ToolRegistry:
    """Maps tool names to tools and remembers which plugin contributed each.

    With `plugins`, messages name each plugin with its distribution (`PluginHost.describe`)
    and the host is told which tools each plugin contributed (`PluginHost.credit`).
    """

    def __init__(self, plugins: PluginHost | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._owners: dict[str, str] = {}
        self._schemas: list[dict[str, Any]] | None = None
        self._plugins = plugins
        #: Each plugin in the order it first contributed a tool (never forgotten).
        self._contributors: dict[str, int] = {}

    def _describe(self, plugin: str) -> str:
        return self._plugins.describe(plugin) if self._plugins else f"plugin '{plugin}'"

    def register(self, tool: Tool, plugin: str = "<unknown>") -> None:
        """Add a tool; a name already taken raises `DuplicateToolError` naming both plugins.

        Something that is not a `Tool`, or a name a model API cannot take, raises TypeError.
        """
        if not isinstance(tool, Tool):
            raise TypeError(
                f"{self._describe(plugin)} contributed {_shown(tool)}, which is not a Tool"
            )
        name = tool.name
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            raise TypeError(
                f"{self._describe(plugin)} contributed a tool named {_shown(name)}; a tool "
                "name is 1 to 64 letters, digits, '_' or '-'"
            )
        if name in self._tools:
            raise DuplicateToolError(
                f"tool '{name}' is contributed by both {self._describe(self._owners[name])} "
                f"and {self._describe(plugin)}; disable one of them with [plugins] disabled = [...]"
            )
        self._tools[name] = tool
        self._owners[name] = plugin
        self._contributors.setdefault(plugin, len(self._contributors))
        self._schemas = None
        if self._plugins is not None:
            self._plugins.credit(plugin, "tools", name)

    def unregister(self, name: str) -> None:
        """Remove a tool by name (no error when absent)."""
        self._tools.pop(name, None)
        self._owners.pop(name, None)
        self._schemas = None
        if self._plugins is not None:
            self._plugins.uncredit("tools", name)

    def prepare(self, report: Callable[[str], None]) -> None:
        """Build every tool's schema now; a tool whose schema cannot be built, or whose
        parameters are not a JSON Schema object, is removed and reported (a broken tool is
        skipped, as a broken plugin is). Idempotent."""
        if self._schemas is not None:
            return
        schemas: list[dict[str, Any]] = []
        for name, tool in sorted(self._tools.items(), key=self._place):
            try:
                schema = tool.schema()
                problem = schema_problem(schema)
            except Exception as exc:
                problem = f"its parameters cannot be described: {' '.join(str(exc).split())}"
            if problem is None:
                schemas.append(schema)
                continue
            report(
                f"tool '{name}' of {self._describe(self._owners.get(name, '?'))} skipped: "
                f"{problem[:300]}"
            )
            self.unregister(name)
        self._schemas = schemas

    def _place(self, item: tuple[str, Tool]) -> tuple[int, str]:
        """Where a tool's definition goes: after those of the plugins that contributed tools
        before its own did, then by name."""
        return (self._contributors.get(self._owners.get(item[0], ""), 0), item[0])

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
        """Tool definitions for the model (cached until a change), in one fixed order: by
        the plugin that contributed them, in the order plugins first contributed a tool (the
        plugins' own tools in load order, then those of MCP servers and extensions as they
        come), then by name. Never by when a tool was registered: a server's restart or an
        extension's reload registers its tools again, and every request must begin with the
        same definitions for a provider's prompt cache to reuse it."""
        if self._schemas is None:
            self.prepare(diagnostics.warn)
        assert self._schemas is not None
        return self._schemas


def schema_problem(schema: Any) -> str | None:
    """Why a tool definition cannot be sent to a model, or None when it can.

    The parameters must be a JSON Schema object (`"type": "object"`, `properties` a
    mapping when present), the description text, and the whole JSON without NaN.
    """
    if not isinstance(schema, dict):
        return f"its definition is {type(schema).__name__}, not an object"
    if not isinstance(schema.get("description"), str):
        return "its description is not text"
    parameters = schema.get("parameters")
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        return 'its parameters are not a JSON Schema object ({"type": "object", …})'
    if not isinstance(parameters.get("properties", {}), dict):
        return "its parameters' properties are not an object"
    try:
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"its definition is not JSON: {exc}"
    return None


def collect_tools(plugins: PluginHost, config: RhoConfig, root: Path) -> ToolRegistry:
    """Every plugin's tools (`rho_register_tools`), each credited to its plugin.

    A contribution that is not a `Tool`, or has a name no model API takes, is reported and
    skipped. A name contributed twice is reported naming both plugins and kept by the plugin
    that loads first (built-ins, then entry points in name order); the other is skipped.
    """
    registry = ToolRegistry(plugins)
    for plugin_name, item in plugins.collect(
        hookspecs.rho_register_tools, config=config, root=root
    ):
        try:
            registry.register(item, plugin_name)
        except DuplicateToolError:
            _contest(registry, plugins, plugin_name, item)
        except Exception as exc:  # garbage: not a Tool, a bad name, a raising property
            plugins.report(f"{_one_line(exc)} (skipped)")
    return registry


def _contest(registry: ToolRegistry, plugins: PluginHost, newcomer: str, tool: Tool) -> None:
    """Keep a contested name with the plugin that loads first; report the one skipped."""
    holder = registry.owner(tool.name) or "?"
    if plugins.rank(newcomer) < plugins.rank(holder):
        registry.unregister(tool.name)
        registry.register(tool, newcomer)
        holder, newcomer = newcomer, holder
    plugins.report(
        f"tool '{tool.name}' of {plugins.describe(newcomer)} skipped: "
        f"{plugins.describe(holder)}, which loads first, contributes a tool of that name; "
        "disable one of them with [plugins] disabled = [...]"
    )


def _shown(value: object) -> str:
    """A short, one-line picture of a hostile value for a message."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return _one_line(text)[:80]


def _one_line(value: object) -> str:
    return " ".join(str(value).split())


__all__ = ["TOOL_NAME", "DuplicateToolError", "ToolRegistry", "collect_tools", "schema_problem"]
