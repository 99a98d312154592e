"""A server's input schema: a bounded JSON Schema object, or the tool is left out."""

from __future__ import annotations

from typing import Any

import pytest

from rho_mcp.schema import MAX_DEPTH, schema_problem

OBJECT: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}}


def test_an_ordinary_schema_is_taken() -> None:
    assert schema_problem(OBJECT) is None
    assert schema_problem({"properties": {}}) is None  # "object" is the default root


def test_recursion_through_a_real_schema_is_taken() -> None:
    tree = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/node"}},
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            }
        },
    }
    assert schema_problem(tree) is None


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ([1, 2], "not an object schema"),
        ({"type": "array"}, "not 'object'"),
        ({"type": "object", "$ref": "#"}, None),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"$ref": "#/$defs/a"}},
            },
            "loop",
        ),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}, "refers to nothing"),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://evil.example/s.json"}}},
            "outside itself",
        ),
        ({"type": "object", "properties": {"a": {"$ref": 5}}}, "outside itself"),
        ({"type": "object", "description": "x" * 70_000}, "bytes"),
        ({"type": "object", "default": float("nan")}, "not JSON"),
    ],
)
def test_a_hostile_schema_is_named(schema: Any, words: str | None) -> None:
    problem = schema_problem(schema)
    if words is None:
        assert problem is None
    else:
        assert problem is not None and words in problem


def test_deep_nesting_is_refused() -> None:
    schema: dict[str, Any] = {"type": "object"}
    inner = schema
    for _ in range(MAX_DEPTH + 2):
        inner["properties"] = {"x": {"type": "object"}}
        inner = inner["properties"]["x"]
    assert "nests deeper" in (schema_problem(schema) or "")
