"""Tools registered by what they declare, their implementations imported on first use.

A rho process registers every tool at start-up but calls few of them, and many processes
call none. So the plugin registers a `DeclaredTool` per tool: its name, risk, phase and
whether it starts processes are declared here, its description and parameters are read from
`schemas.json` (a copy of what the implementation describes, checked by the tests and written
by `python -m rho_tools_fs.declared`), and the implementation module is imported only when
the tool is called, or asked for its outline, continuation or a call's risk.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel.tools import Phase, Risk, Tool

if TYPE_CHECKING:
    from rho_kernel.tools import ToolContext, ToolResult

#: The tools' definitions as their implementations give them (see `write_schemas`).
SCHEMAS = Path(__file__).with_name("schemas.json")


@dataclass(frozen=True, slots=True)
class Declaration:
    """What registering a tool needs: its name, where it is defined, and its flags."""

    name: str
    module: str
    attribute: str
    risk: Risk
    phase: Phase | None
    runs_processes: bool = False
    confined_risk: Risk | None = None


#: The tools of this pack, in rho's registration order.
DECLARATIONS = (
    Declaration("read_file", "rho_tools_fs.read_file", "read_file", Risk.READ, Phase.EXPLORATION),
    Declaration(
        "batch_read", "rho_tools_fs.batch_read", "batch_read", Risk.READ, Phase.EXPLORATION
    ),
    Declaration("write_file", "rho_tools_fs.write_file", "write_file", Risk.WRITE, Phase.EXECUTION),
    Declaration("list_dir", "rho_tools_fs.list_dir", "list_dir", Risk.READ, Phase.EXPLORATION),
    Declaration("edit_file", "rho_tools_fs.edit_file", "edit_file", Risk.WRITE, Phase.EXECUTION),
    Declaration(
        "search_files", "rho_tools_fs.search_files", "search_files", Risk.READ, Phase.EXPLORATION
    ),
    Declaration(
        "find_files", "rho_tools_fs.find_files", "find_files", Risk.READ, Phase.EXPLORATION
    ),
    Declaration(
        "run_command",
        "rho_tools_fs.run_command",
        "run_command",
        Risk.DESTRUCTIVE,
        Phase.EXECUTION,
        runs_processes=True,
    ),
    Declaration(
        "wait_for", "rho_tools_fs.wait_for", "wait_for", Risk.DESTRUCTIVE, None, runs_processes=True
    ),
    Declaration(
        "session_summary",
        "rho_tools_fs.session_summary",
        "session_summary",
        Risk.READ,
        Phase.EXPLORATION,
    ),
)


@cache
def _schemas() -> dict[str, dict[str, Any]]:
    """The stored definitions by tool name (empty when the file is missing or unreadable)."""
    try:
        stored = json.loads(SCHEMAS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {schema["name"]: schema for schema in stored if isinstance(schema, dict)}


class DeclaredTool(Tool):
    """A tool of this pack that imports its implementation (`target`) on first use."""

    def __init__(self, declaration: Declaration) -> None:
        self.declaration = declaration
        self.name = declaration.name
        self.risk = declaration.risk
        self.phase = declaration.phase
        self.runs_processes = declaration.runs_processes
        self.confined_risk = declaration.confined_risk
        self._target: Tool | None = None

    @property
    def target(self) -> Tool:
        """The implementing tool (its module is imported on the first use)."""
        if self._target is None:
            module = importlib.import_module(self.declaration.module)
            self._target = getattr(module, self.declaration.attribute)
        return self._target

    def _stored(self) -> dict[str, Any] | None:
        return _schemas().get(self.name)

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
        """The tool definition, from `schemas.json` (the implementation's without it)."""
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

    def continuation(
        self, arguments: dict[str, Any], result: ToolResult, kept_lines: int
    ) -> str | None:
        """The implementation's advice on reading on after a cut result."""
        return self.target.continuation(arguments, result, kept_lines)


def declared_tools() -> list[Tool]:
    """A fresh `DeclaredTool` for each tool of this pack, in registration order."""
    return [DeclaredTool(declaration) for declaration in DECLARATIONS]


def implementation_schemas() -> list[dict[str, Any]]:
    """Every tool's definition as its implementation gives it (imports them all)."""
    return [DeclaredTool(declaration).target.schema() for declaration in DECLARATIONS]


def write_schemas() -> None:
    """Write `schemas.json` from the implementations (after changing a tool's description
    or parameters)."""
    text = json.dumps(implementation_schemas(), indent=1, ensure_ascii=False)
    SCHEMAS.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_schemas()


__all__ = [
    "DECLARATIONS",
    "SCHEMAS",
    "Declaration",
    "DeclaredTool",
    "declared_tools",
    "implementation_schemas",
    "write_schemas",
]
