"""The manifest as rho uses it: the isolate's description made typed, compact parameters
turned into JSON Schema, names a model API cannot take refused by field."""

from __future__ import annotations

from typing import Any

import pytest

from rho_ext_js.manifest import ManifestError, parameters_schema, parse_manifest
from rho_kernel import Risk

DESCRIPTOR: dict[str, Any] = {
    "name": "my-extension",
    "version": "1.0.0",
    "tools": [
        {
            "name": "search",
            "description": "Search documentation",
            "risk": "read",
            "parameters": {
                "query": {"type": "string", "description": "Search query", "required": True},
                "limit": {"type": "number", "required": False},
            },
        }
    ],
    "hooks": ["onLoad", "onToolCall"],
    "commands": [{"name": "deploy", "description": "Deploy", "risk": "destructive"}],
}


def test_the_description_becomes_a_typed_manifest() -> None:
    manifest = parse_manifest("my-extension", DESCRIPTOR)
    assert (manifest.name, manifest.version) == ("my-extension", "1.0.0")
    (tool,) = manifest.tools
    assert (tool.name, tool.risk) == ("search", Risk.READ)
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query"},
            "limit": {"type": "number"},
        },
        "required": ["query"],
    }
    assert manifest.hooks == {"onLoad", "onToolCall"}
    assert [(c.name, c.risk) for c in manifest.commands] == [("deploy", Risk.DESTRUCTIVE)]


def test_no_parameters_is_an_empty_object_schema() -> None:
    assert parameters_schema({}) == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name": " "}, "name: must not be empty"),
        ({"tools": [{**DESCRIPTOR["tools"][0], "name": "bad name"}]}, "tool 'bad name': name must"),
        ({"tools": [{**DESCRIPTOR["tools"][0], "description": " "}]}, "description must not be"),
        ({"commands": [{"name": "no spaces please", "description": ""}]}, "command 'no spaces"),
    ],
)
def test_what_rho_cannot_use_is_named(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("ext", {**DESCRIPTOR, **change})
    assert str(caught.value).startswith("extension 'ext': invalid manifest: ")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    "descriptor",
    [
        None,
        [],
        {"name": "x", "tools": [{}]},
        {"name": "x", "tools": [{**DESCRIPTOR["tools"][0], "risk": "root"}]},
    ],
)
def test_a_description_of_the_wrong_shape_is_a_manifest_error(descriptor: Any) -> None:
    with pytest.raises(ManifestError, match="malformed"):
        parse_manifest("ext", descriptor)
