"""A server's input schema: a bounded JSON Schema object, or the tool is left out."""

from __future__ import annotations

from typing import Any

import pytest

from rho_mcp.schema import MAX_DEPTH, MAX_REFERENCES, schema_problem

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


def test_a_long_chain_of_references_is_judged_once_per_pointer() -> None:
    links = MAX_REFERENCES - 1
    chain: dict[str, Any] = {str(n): {"$ref": f"#/{n + 1}"} for n in range(links)}
    schema = {"type": "object", **chain, str(links): {"type": "string"}}
    assert schema_problem(schema) is None
    schema[str(links)] = {"$ref": "#/0"}
    assert "loop" in (schema_problem(schema) or "")


def test_too_many_references_are_refused() -> None:
    refs = {str(n): {"$ref": "#/target"} for n in range(MAX_REFERENCES + 1)}
    schema = {"type": "object", "target": {"type": "string"}, **refs}
    assert "$refs (at most" in (schema_problem(schema) or "")
