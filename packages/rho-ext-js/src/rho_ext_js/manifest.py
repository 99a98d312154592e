"""The manifest an extension exports (`export default {...}`), checked and made typed.

The format is the book's: `name` (required), `version`, `tools` (`name`, `description`,
`risk`, `parameters` in the compact form `{param: {type, description?, required?}}`,
`execute`), `hooks` (`onLoad`, `onToolCall`, `onToolResult`; `onBeforeModel` is accepted
and never called) and `commands` (`name`, `description?`, `handler`). The isolate hands it
over as plain data with each function replaced by `FUNCTION` (the functions stay in V8).
Every problem is reported at once, each naming its field (`tools[1].risk: …`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rho_kernel import Risk

#: How the isolate marks a function in the manifest data.
FUNCTION = "[function]"

#: The hooks the book defines; `onBeforeModel` is accepted and never called.
HOOKS = ("onLoad", "onToolCall", "onToolResult", "onBeforeModel")

#: The risks a manifest may declare.
RISKS = ("read", "write", "destructive", "network")

#: Parameter types of the compact form, and the JSON Schema types they become.
PARAMETER_TYPES = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_COMMAND = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class ManifestError(Exception):
    """The manifest does not fit the format; `problems` lists each one by field."""

    def __init__(self, extension: str, problems: list[str]) -> None:
        self.extension = extension
        self.problems = problems
        shown = "; ".join(problems[:8]) + (
            f"; … ({len(problems)} in all)" if len(problems) > 8 else ""
        )
        super().__init__(f"extension '{extension}': invalid manifest: {shown}")


@dataclass(frozen=True)
class ToolSpec:
    """A tool an extension declares."""

    name: str
    description: str
    risk: Risk
    parameters: dict[str, Any]


@dataclass(frozen=True)
class CommandSpec:
    """A command an extension declares."""

    name: str
    description: str


@dataclass(frozen=True)
class Manifest:
    """A checked manifest."""

    name: str
    version: str | None
    tools: tuple[ToolSpec, ...] = ()
    hooks: frozenset[str] = field(default_factory=frozenset)
    commands: tuple[CommandSpec, ...] = ()


def parse_manifest(extension: str, data: Any) -> Manifest:
    """The manifest of extension `extension` (its discovery name), or `ManifestError`."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise ManifestError(
            extension,
            [f"the default export is {_kind(data)}, not an object (export default {{ name, … }})"],
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("name: required, a non-empty string")
    version = data.get("version")
    if version is not None and not isinstance(version, str):
        problems.append(f"version: expected a string, got {_kind(version)}")
    tools = _tools(data.get("tools", []), problems)
    hooks = _hooks(data.get("hooks", {}), problems)
    commands = _commands(data.get("commands", []), problems)
    if problems:
        raise ManifestError(extension, problems)
    assert isinstance(name, str)
    return Manifest(name.strip(), version, tuple(tools), frozenset(hooks), tuple(commands))


def _tools(value: Any, problems: list[str]) -> list[ToolSpec]:
    if not isinstance(value, list):
        problems.append(f"tools: expected an array, got {_kind(value)}")
        return []
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        at = f"tools[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{at}: expected an object, got {_kind(item)}")
            continue
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            problems.append(f"{at}.name: required, 1 to 64 letters, digits, '_' or '-'")
            name = None
        elif name in seen:
            problems.append(f"{at}.name: '{name}' is declared twice")
        description = item.get("description")
        if not isinstance(description, str) or not description.strip():
            problems.append(f"{at}.description: required, a non-empty string")
        risk = item.get("risk")
        if risk not in RISKS:
            problems.append(f"{at}.risk: required, one of {', '.join(RISKS)} (got {_shown(risk)})")
        if item.get("execute") != FUNCTION:
            problems.append(f"{at}.execute: required, a function (async execute(args) {{ … }})")
        parameters = _parameters(item.get("parameters", {}), f"{at}.parameters", problems)
        if (
            name is not None
            and isinstance(description, str)
            and risk in RISKS
            and parameters is not None
        ):
            seen.add(name)
            specs.append(ToolSpec(name, description.strip(), Risk(risk), parameters))
    return specs


def _parameters(value: Any, at: str, problems: list[str]) -> dict[str, Any] | None:
    """The compact form as a JSON Schema object (a full JSON Schema object is taken as is)."""
    if value is None:
        value = {}
    if not isinstance(value, dict):
        problems.append(f"{at}: expected an object, got {_kind(value)}")
        return None
    if value.get("type") == "object" and isinstance(value.get("properties", {}), dict):
        return dict(value)
    properties: dict[str, Any] = {}
    required: list[str] = []
    ok = True
    for name, spec in value.items():
        where = f"{at}.{name}"
        if not isinstance(spec, dict):
            problems.append(
                f"{where}: expected {{type, description?, required?}}, got {_kind(spec)}"
            )
            ok = False
            continue
        kind = spec.get("type")
        if kind not in PARAMETER_TYPES:
            problems.append(
                f"{where}.type: one of {', '.join(PARAMETER_TYPES)} (got {_shown(kind)})"
            )
            ok = False
            continue
        schema: dict[str, Any] = {"type": PARAMETER_TYPES[kind]}
        description = spec.get("description")
        if isinstance(description, str):
            schema["description"] = description
        properties[name] = schema
        if spec.get("required") is True:  # the book: only a literal true makes it required
            required.append(name)
    if not ok:
        return None
    schema_object: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema_object["required"] = required
    return schema_object


def _hooks(value: Any, problems: list[str]) -> set[str]:
    if not isinstance(value, dict):
        problems.append(f"hooks: expected an object, got {_kind(value)}")
        return set()
    hooks: set[str] = set()
    for name, function in value.items():
        if name not in HOOKS:
            problems.append(f"hooks.{name}: unknown hook (known: {', '.join(HOOKS)})")
        elif function != FUNCTION:
            problems.append(f"hooks.{name}: expected a function, got {_kind(function)}")
        else:
            hooks.add(name)
    return hooks


def _commands(value: Any, problems: list[str]) -> list[CommandSpec]:
    if not isinstance(value, list):
        problems.append(f"commands: expected an array, got {_kind(value)}")
        return []
    specs: list[CommandSpec] = []
    for index, item in enumerate(value):
        at = f"commands[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{at}: expected an object, got {_kind(item)}")
            continue
        name = item.get("name")
        description = item.get("description", "")
        if not isinstance(name, str) or not _COMMAND.fullmatch(name):
            problems.append(f"{at}.name: required, 1 to 64 letters, digits, '_', '-', '.' or ':'")
        elif any(spec.name == name for spec in specs):
            problems.append(f"{at}.name: '{name}' is declared twice")
        elif not isinstance(description, str):
            problems.append(f"{at}.description: expected a string, got {_kind(description)}")
        elif item.get("handler") != FUNCTION:
            problems.append(f"{at}.handler: required, a function (async handler(args) {{ … }})")
        else:
            specs.append(CommandSpec(name, description))
    return specs


def _kind(value: Any) -> str:
    if value == FUNCTION:
        return "a function"
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    return "nothing" if value is None else repr(value)[:40]


__all__ = [
    "FUNCTION",
    "HOOKS",
    "PARAMETER_TYPES",
    "RISKS",
    "CommandSpec",
    "Manifest",
    "ManifestError",
    "ToolSpec",
    "parse_manifest",
]
