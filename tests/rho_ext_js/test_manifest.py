"""The manifest format of the book: checked field by field, compact parameters turned into
JSON Schema, every problem named by its field."""

from __future__ import annotations

from typing import Any

import pytest

from rho_ext_js.manifest import FUNCTION, ManifestError, parse_manifest
from rho_kernel import Risk

BOOK = {
    "name": "my-extension",
    "version": "1.0.0",
    "tools": [
        {
            "name": "search",
            "description": "Search documentation",
            "risk": "read",
            "parameters": {
                "query": {"type": "string", "description": "Search query", "required": True},
                "limit": {"type": "number", "required": "yes"},
            },
            "execute": FUNCTION,
        }
    ],
    "hooks": {"onLoad": FUNCTION, "onToolCall": FUNCTION, "onToolResult": FUNCTION},
    "commands": [{"name": "deploy", "description": "Deploy", "handler": FUNCTION}],
}


def test_the_books_example_parses() -> None:
    manifest = parse_manifest("my-extension", BOOK)
    assert (manifest.name, manifest.version) == ("my-extension", "1.0.0")
    (tool,) = manifest.tools
    assert (tool.name, tool.risk) == ("search", Risk.READ)
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "limit": {"type": "number"},
        },
        "required": ["query"],  # only a literal true makes a parameter required
    }
    assert manifest.hooks == {"onLoad", "onToolCall", "onToolResult"}
    assert [c.name for c in manifest.commands] == ["deploy"]


def test_a_json_schema_object_is_taken_as_it_is() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    tool = {**BOOK["tools"][0], "parameters": schema}  # type: ignore[dict-item]
    (parsed,) = parse_manifest("x", {"name": "x", "tools": [tool]}).tools
    assert parsed.parameters == schema


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (None, "the default export is null, not an object"),
        ({"version": "1"}, "name: required"),
        ({"name": "x", "version": 2}, "version: expected a string, got a number"),
        ({"name": "x", "tools": {}}, "tools: expected an array, got an object"),
        (
            {"name": "x", "tools": [{**BOOK["tools"][0], "risk": "admin"}]},
            "tools[0].risk: required, one of",
        ),  # type: ignore[dict-item]
        (
            {"name": "x", "tools": [{**BOOK["tools"][0], "execute": "run"}]},
            "tools[0].execute: required, a function",
        ),  # type: ignore[dict-item]
        (
            {"name": "x", "tools": [{**BOOK["tools"][0], "name": "bad name"}]},
            "tools[0].name: required",
        ),  # type: ignore[dict-item]
        (
            {"name": "x", "tools": [BOOK["tools"][0], BOOK["tools"][0]]},
            "tools[1].name: 'search' is declared twice",
        ),  # type: ignore[index]
        (
            {"name": "x", "tools": [{**BOOK["tools"][0], "parameters": {"q": {"type": "date"}}}]},  # type: ignore[dict-item]
            "tools[0].parameters.q.type: one of",
        ),
        ({"name": "x", "hooks": {"onExplode": FUNCTION}}, "hooks.onExplode: unknown hook"),
        ({"name": "x", "hooks": {"onLoad": 1}}, "hooks.onLoad: expected a function"),
        ({"name": "x", "commands": [{"name": "go"}]}, "commands[0].handler: required, a function"),
    ],
)
def test_each_problem_names_its_field(data: Any, problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("ext", data)
    assert f"extension 'ext': invalid manifest: {problem}" in str(caught.value) or problem in str(
        caught.value
    )
    assert str(caught.value).startswith("extension 'ext': invalid manifest: ")


def test_all_problems_are_reported_together() -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("ext", {"version": 1, "tools": [{}], "commands": "no"})
    problems = caught.value.problems
    assert any(p.startswith("name:") for p in problems)
    assert any(p.startswith("version:") for p in problems)
    assert any(p.startswith("tools[0].description:") for p in problems)
    assert any(p.startswith("commands:") for p in problems)
