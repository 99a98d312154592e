"""Every message rho wrote to a test, checked against docs/openrpc.json.

The e2e fixture `start_rho` runs `drift` on each process it started when the test ends, so
a response, notification or request that the document does not describe fails the test
that produced it. The validator knows the subset of JSON Schema the document uses and
refuses the rest (a keyword it does not know is an error, not a pass); an object schema
that lists `properties` refuses members it does not list unless `additionalProperties`
allows them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openrpc.json"

#: Keywords that only annotate.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "format"})
KNOWN_KEYWORDS = _ANNOTATIONS | {
    "$ref", "type", "properties", "required", "additionalProperties", "items", "anyOf",
    "oneOf", "allOf", "enum", "const", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
}  # fmt: skip
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Validator:
    """Validates values against the schemas of one OpenRPC document."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.components: dict[str, Any] = document.get("components", {}).get("schemas", {})

    def problems(self, schema: Any, value: Any, where: str = "") -> list[str]:
        """What is wrong with `value` (empty when it fits `schema`)."""
        if schema is True or schema == {}:
            return []
        if not isinstance(schema, dict):
            return [f"{where or '(value)'}: unusable schema {schema!r}"]
        unknown = set(schema) - KNOWN_KEYWORDS
        if unknown:
            return [f"{where or '(value)'}: the checker does not know {sorted(unknown)}"]
        if "$ref" in schema:
            return self.problems(self._resolve(schema["$ref"]), value, where)
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                tries = [self.problems(option, value, where) for option in schema[keyword]]
                if all(tries):
                    return [
                        f"{where or '(value)'}: fits no option: "
                        + " | ".join("; ".join(found) for found in tries)
                    ]
        found: list[str] = []
        for part in schema.get("allOf", []):
            found += self.problems(part, value, where)
        return found + self._own(schema, value, where or "(value)")

    def _resolve(self, ref: str) -> Any:
        prefix = "#/components/schemas/"
        if not ref.startswith(prefix) or ref[len(prefix) :] not in self.components:
            return {"not a known reference": ref}
        return self.components[ref[len(prefix) :]]

    def _own(self, schema: dict[str, Any], value: Any, where: str) -> list[str]:
        kinds = schema.get("type")
        if kinds is not None:
            names = kinds if isinstance(kinds, list) else [kinds]
            if not any(_TYPES[name](value) for name in names):
                return [f"{where}: {json.dumps(value)[:80]} is not of type {kinds}"]
        if "enum" in schema and value not in schema["enum"]:
            return [f"{where}: {value!r} is not one of {schema['enum']}"]
        if "const" in schema and value != schema["const"]:
            return [f"{where}: {value!r} is not {schema['const']!r}"]
        found = _bounds(schema, value, where)
        if isinstance(value, dict):
            found += self._object(schema, value, where)
        if isinstance(value, list) and "items" in schema:
            for index, item in enumerate(value):
                found += self.problems(schema["items"], item, f"{where}[{index}]")
        return found

    def _object(self, schema: dict[str, Any], value: dict[str, Any], where: str) -> list[str]:
        properties = schema.get("properties", {})
        found = [
            f"{where}: missing {name!r}" for name in schema.get("required", []) if name not in value
        ]
        extra = schema.get("additionalProperties", "properties" not in schema)
        for key, item in value.items():
            if key in properties:
                found += self.problems(properties[key], item, f"{where}.{key}")
            elif extra is False:
                found.append(f"{where}: {key!r} is not in the document")
            elif isinstance(extra, dict):
                found += self.problems(extra, item, f"{where}.{key}")
        return found


def _bounds(schema: dict[str, Any], value: Any, where: str) -> list[str]:
    checks = {
        "minLength": lambda v, b: not isinstance(v, str) or len(v) >= b,
        "maxLength": lambda v, b: not isinstance(v, str) or len(v) <= b,
        "minItems": lambda v, b: not isinstance(v, list) or len(v) >= b,
        "maxItems": lambda v, b: not isinstance(v, list) or len(v) <= b,
        "minimum": lambda v, b: not _is_number(v) or v >= b,
        "maximum": lambda v, b: not _is_number(v) or v <= b,
        "exclusiveMinimum": lambda v, b: not _is_number(v) or v > b,
        "exclusiveMaximum": lambda v, b: not _is_number(v) or v < b,
    }
    return [
        f"{where}: {json.dumps(value)[:80]} breaks {keyword} {schema[keyword]}"
        for keyword, fits in checks.items()
        if keyword in schema and not fits(value, schema[keyword])
    ]


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


@cache
def _document() -> tuple[Validator, dict[str, Any], dict[str, Any]]:
    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    methods = {method["name"]: method for method in document["methods"]}
    notifications = {item["name"]: item for item in document["x-notifications"]}
    return Validator(document), methods, notifications


def _key(request_id: Any) -> str:
    return json.dumps(request_id, sort_keys=True)


def sent_methods(sent: list[bytes]) -> dict[str, set[str]]:
    """The methods of the requests among the lines sent to rho, by id."""
    methods: dict[str, set[str]] = {}
    for line in b"".join(sent).split(b"\n"):
        # A request names its method: a line with no `method` key, even one spelled with
        # escapes, holds none, and is not decoded (a test may send megabytes of it).
        if b"method" not in line and b"\\u" not in line:
            continue
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            continue
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict) and "id" in item and isinstance(item.get("method"), str):
                methods.setdefault(_key(item["id"]), set()).add(item["method"])
    return methods


def drift(sent: list[bytes], received: list[bytes]) -> list[str]:
    """What in the lines rho wrote (`received`) the document does not describe, given the
    lines it was sent."""
    validator, methods, notifications = _document()
    asked = sent_methods(sent)
    found: list[str] = []
    for number, line in enumerate(received, start=1):
        try:
            message = json.loads(line)
        except ValueError:
            found.append(f"line {number} is not JSON: {line[:80]!r}")
            continue
        for item in message if isinstance(message, list) else [message]:
            problems = _message(validator, methods, notifications, asked, item)
            found += [f"line {number}: {problem}" for problem in problems]
    return found


def _message(
    validator: Validator,
    methods: dict[str, Any],
    notifications: dict[str, Any],
    asked: dict[str, set[str]],
    message: Any,
) -> list[str]:
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return [f"not a JSON-RPC 2.0 message: {str(message)[:80]}"]
    name = message.get("method")
    if name is not None:
        if "id" in message:
            return [f"rho sent a request ({name}); the document declares none"]
        if name not in notifications:
            return [f"notification {name!r} is not in the document"]
        if "params" not in message:
            return [f"notification {name!r} has no params; the document declares an object"]
        return validator.problems(notifications[name]["params"], message["params"], name)
    return _response(validator, methods, asked, message)


_ERROR = {
    "type": "object",
    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}, "data": {}},
    "required": ["code", "message"],
}


def _response(
    validator: Validator, methods: dict[str, Any], asked: dict[str, set[str]], message: Any
) -> list[str]:
    keys = set(message)
    if keys not in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"}):
        return [f"a response holds {sorted(keys)}"]
    if "error" in message:
        return validator.problems(_ERROR, message["error"], "error")
    described = [methods[name] for name in asked.get(_key(message["id"]), ()) if name in methods]
    tries = [
        validator.problems(
            method["result"]["schema"], message["result"], f"{method['name']} result"
        )
        for method in described
    ]
    return tries[0] if tries and all(tries) else []


__all__ = ["KNOWN_KEYWORDS", "Validator", "drift", "sent_methods"]
