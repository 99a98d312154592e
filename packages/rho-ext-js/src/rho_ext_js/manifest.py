"""An extension's manifest as rho uses it: typed, with tool parameters as JSON Schema.

The isolate checks the book's format in V8 (`manifest.js`: `name`, `version`, `tools` with
`name`/`description`/`risk`/`parameters`/`execute`, `hooks`, `commands` with `name`/
`description`/`handler` and, beyond the book, an optional `risk`) and describes it as plain
data; the functions stay in V8. This module checks what rho needs on top (names a model API
accepts, descriptions that say something) and builds the typed `Manifest`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rho_kernel import Risk

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_COMMAND_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class ManifestError(Exception):
    """The manifest does not fit: the message names the extension and each field at fault."""

    def __init__(self, extension: str, problems: list[str]) -> None:
        self.extension = extension
        self.problems = problems
        super().__init__(f"extension '{extension}': invalid manifest: {'; '.join(problems)}")


@dataclass(frozen=True)
class ToolSpec:
    """A tool an extension declares (`parameters` is a JSON Schema object)."""

    name: str
    description: str
    risk: Risk
    parameters: dict[str, Any]


@dataclass(frozen=True)
class CommandSpec:
    """A command an extension declares; `risk` is what its handler may do when run."""

    name: str
    description: str
    risk: Risk = Risk.READ


@dataclass(frozen=True)
class Manifest:
    """A checked manifest."""

    name: str
    version: str | None
    tools: tuple[ToolSpec, ...] = ()
    hooks: frozenset[str] = field(default_factory=frozenset)
    commands: tuple[CommandSpec, ...] = ()


def parameters_schema(compact: dict[str, Any]) -> dict[str, Any]:
    """The book's compact parameters (`{p: {type, required, description?}}`) as a JSON Schema
    object; only parameters whose `required` is true are required."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in compact.items():
        schema: dict[str, Any] = {"type": spec["type"]}
        if "description" in spec:
            schema["description"] = spec["description"]
        properties[name] = schema
        if spec.get("required") is True:
            required.append(name)
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def parse_manifest(extension: str, descriptor: Any) -> Manifest:
    """The typed manifest of the isolate's `descriptor`; `ManifestError` lists what rho
    cannot use (a tool name no model API takes, an empty description, a bad command name).

    The description comes out of the extension's own isolate, where its code could have
    changed the built-ins the check relies on: one of the wrong shape is a `ManifestError`
    too, never another exception."""
    try:
        return _parse(extension, descriptor)
    except (AttributeError, KeyError, TypeError, ValueError):
        raise ManifestError(extension, ["the description of the manifest is malformed"]) from None


def _parse(extension: str, descriptor: Any) -> Manifest:
    problems: list[str] = []
    name = str(descriptor.get("name") or "").strip()
    if not name:
        problems.append("name: must not be empty")
    tools = []
    for tool in descriptor.get("tools", []):
        if not _TOOL_NAME.fullmatch(tool["name"]):
            problems.append(
                f"tool {tool['name']!r}: name must be 1 to 64 letters, digits, '_' or '-'"
            )
        elif not tool["description"].strip():
            problems.append(f"tool {tool['name']}: description must not be empty")
        else:
            schema = parameters_schema(tool.get("parameters", {}))
            tools.append(
                ToolSpec(tool["name"], tool["description"].strip(), Risk(tool["risk"]), schema)
            )
    commands = []
    for command in descriptor.get("commands", []):
        if not _COMMAND_NAME.fullmatch(command["name"]):
            problems.append(
                f"command {command['name']!r}: name must be 1 to 64 letters, digits, '_', '-', "
                "'.' or ':'"
            )
        else:
            risk = Risk(command.get("risk", "read"))
            commands.append(CommandSpec(command["name"], command.get("description", ""), risk))
    if problems:
        raise ManifestError(extension, problems)
    version = descriptor.get("version")
    return Manifest(
        name,
        version if isinstance(version, str) else None,
        tuple(tools),
        frozenset(descriptor.get("hooks", [])),
        tuple(commands),
    )


__all__ = [
    "CommandSpec",
    "Manifest",
    "ManifestError",
    "ToolSpec",
    "parameters_schema",
    "parse_manifest",
]
