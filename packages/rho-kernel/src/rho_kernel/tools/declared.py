"""Tools registered by what they declare, their implementations imported on first use.

A rho process registers every tool at start-up but calls few of them, and many processes
call none. A pack with many tools can register a `DeclaredTool` per tool instead of the tool
itself: its name, risk, phase and flags come from a `ToolDeclaration`, its description and
parameters from a JSON file the pack ships (a copy of what each implementation describes,
written by `write_schemas` and kept equal by a test), and the implementation's module is
imported only when the tool is called, or asked for its outline, continuation or a call's
risk. Without the file, the implementation describes itself.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_kernel.tools.base import Phase, Risk, Tool

if TYPE_CHECKING:
    from rho_kernel.approvals.preview import Preview
    from rho_kernel.tools.base import ToolContext, ToolResult


@dataclass(frozen=True, slots=True)
class ToolDeclaration:
    """What registering a tool needs: its name, where it is defined (`module`.`attribute`,
    a `Tool`), and the flags rho reads before the tool is first used."""

    name: str
    module: str
    attribute: str
    risk: Risk
    phase: Phase | None
    runs_processes: bool = False
    confined_risk: Risk | None = None
    fresh_process_per_call: bool = False
    rule_subject: Literal["command", "path"] | None = None


@cache
def _stored_schemas(path: Path) -> dict[str, dict[str, Any]]:
    """The definitions stored in `path` by tool name (empty when it is missing or unreadable)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, list):
        return {}
    return {schema["name"]: schema for schema in stored if isinstance(schema, dict)}


class DeclaredTool(Tool):
    """A tool that imports its implementation (`target`) on first use; its description and
    parameters are read from `schemas` (see `write_schemas`)."""

    def __init__(self, declaration: ToolDeclaration, schemas: Path) -> None:
        self.declaration = declaration
        self.schemas = schemas
        self.name = declaration.name
        self.risk = declaration.risk
        self.phase = declaration.phase
        self.runs_processes = declaration.runs_processes
        self.confined_risk = declaration.confined_risk
        self.fresh_process_per_call = declaration.fresh_process_per_call
        self.rule_subject = declaration.rule_subject
        self._target: Tool | None = None

    @property
    def target(self) -> Tool:
        """The implementing tool (its module is imported on the first use)."""
        if self._target is None:
            module = importlib.import_module(self.declaration.module)
            self._target = getattr(module, self.declaration.attribute)
        return self._target

    def _stored(self) -> dict[str, Any] | None:
        return _stored_schemas(self.schemas).get(self.name)

    @property
    def description(self) -> str:  # type: ignore[override]
        """The description sent to the model."""
        stored = self._stored()
        return str(stored["description"]) if stored else self.target.description

    @property
    def parameters(self) -> dict[str, Any]:  # type: ignore[override]
        """The JSON Schema of the arguments."""
        stored = self._stored()
        return stored["parameters"] if stored else self.target.parameters

    def schema(self) -> dict[str, Any]:
        """The tool definition, from the stored file (the implementation's without it)."""
        stored = self._stored()
        if stored is None:
            return self.target.schema()
        return {
            "name": self.name,
            "description": stored["description"],
            "parameters": stored["parameters"],
        }

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.target.execute(args, ctx)

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        """The implementation's risk of this call."""
        return self.target.call_risk(arguments)

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """The implementation's one-line outline of this call."""
        return self.target.outline(arguments, result)

    @property
    def cut_keeps_tail(self) -> bool:  # type: ignore[override]
        """Whether the implementation keeps a cut result's last lines too (asked only of a
        result too large, so after the call has imported it)."""
        return self.target.cut_keeps_tail is True

    def continuation(
        self, arguments: dict[str, Any], result: ToolResult, kept_lines: int
    ) -> str | None:
        """The implementation's advice on reading on after a cut result."""
        return self.target.continuation(arguments, result, kept_lines)

    async def preview(self, arguments: dict[str, Any], ctx: ToolContext) -> Preview | None:
        """The implementation's planned change, when it previews one."""
        return await self.target.preview(arguments, ctx)

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """The implementation's reason why this call cannot run (None: it may be asked)."""
        return await self.target.check(arguments, ctx)


def declared_tools(declarations: Sequence[ToolDeclaration], schemas: Path) -> list[Tool]:
    """A fresh `DeclaredTool` for each declaration, in order."""
    return [DeclaredTool(declaration, schemas) for declaration in declarations]


def implementation_schemas(declarations: Sequence[ToolDeclaration]) -> list[dict[str, Any]]:
    """Every declared tool's definition as its implementation gives it (imports them all)."""
    return [getattr(importlib.import_module(d.module), d.attribute).schema() for d in declarations]


def write_schemas(declarations: Sequence[ToolDeclaration], schemas: Path) -> None:
    """Write the definitions file from the implementations (after changing a tool's
    description or parameters)."""
    text = json.dumps(implementation_schemas(declarations), indent=1, ensure_ascii=False)
    schemas.write_text(text + "\n", encoding="utf-8")
    _stored_schemas.cache_clear()


__all__ = [
    "DeclaredTool",
    "ToolDeclaration",
    "declared_tools",
    "implementation_schemas",
    "write_schemas",
]
