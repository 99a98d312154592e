"""ToolRegistry: attribution and duplicate names."""

from __future__ import annotations

import pytest

from rho_kernel import Tool, tool
from rho_kernel.tools import DuplicateToolError, ToolRegistry


@tool
def alpha() -> str:
    """A."""
    return "a"


def test_duplicate_names_name_both_plugins() -> None:
    registry = ToolRegistry()
    registry.register(alpha, "first-plugin")
    with pytest.raises(DuplicateToolError) as info:
        registry.register(alpha, "second-plugin")
    assert "'alpha'" in str(info.value)
    assert "first-plugin" in str(info.value) and "second-plugin" in str(info.value)


def test_schemas_are_cached_until_a_change() -> None:
    registry = ToolRegistry()
    registry.register(alpha, "p")
    first = registry.schemas()
    assert registry.schemas() is first
    registry.unregister("alpha")
    assert registry.schemas() == []
    assert registry.owner("alpha") is None


def test_non_tools_are_refused() -> None:
    with pytest.raises(TypeError, match="plugin 'p'"):
        ToolRegistry().register(object(), "p")  # type: ignore[arg-type]


class Opaque:
    """Not a type pydantic can describe."""


def test_a_tool_whose_schema_cannot_be_built_is_skipped_and_reported() -> None:
    @tool
    def broken(thing: Opaque) -> str:
        """Takes something JSON cannot hold."""
        return "never"

    @tool
    def fine(text: str) -> str:
        """Fine."""
        return text

    registry = ToolRegistry()
    registry.register(broken, "plugin-a")
    registry.register(fine, "plugin-b")
    reports: list[str] = []
    registry.prepare(reports.append)
    assert [schema["name"] for schema in registry.schemas()] == ["fine"]
    assert "broken" not in registry
    assert len(reports) == 1 and "tool 'broken' of plugin 'plugin-a' skipped" in reports[0]


def test_schemas_are_built_only_when_first_needed() -> None:
    @tool
    def lazy(text: str, times: int = 1) -> str:
        """Lazy."""
        return text * times

    assert lazy._args_model is None
    assert lazy.parameters["required"] == ["text"]
    assert lazy._args_model is not None


def test_a_tool_whose_parameters_are_not_an_object_schema_is_skipped() -> None:
    from rho_kernel import Tool

    class Flat(Tool):
        name = "flat"
        description = "Parameters that are a string schema."
        parameters = {"type": "string"}  # noqa: RUF012

    class Nan(Tool):
        name = "nan"
        description = "A default no JSON can hold."
        parameters = {"type": "object", "properties": {"n": {"default": float("nan")}}}  # noqa: RUF012

    registry = ToolRegistry()
    registry.register(Flat(), "plugin-a")
    registry.register(Nan(), "plugin-a")
    registry.register(alpha, "plugin-b")
    reports: list[str] = []
    registry.prepare(reports.append)
    assert [schema["name"] for schema in registry.schemas()] == ["alpha"]
    assert (
        "tool 'flat' of plugin 'plugin-a' skipped: its parameters are not a JSON Schema"
        in (reports[0])
    )
    assert "tool 'nan' of plugin 'plugin-a' skipped: its definition is not JSON" in reports[1]


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "new\nline", 7])
def test_a_name_no_model_api_takes_is_refused(name: object) -> None:
    from rho_kernel import Tool

    class Named(Tool):
        description = "Badly named."

    Named.name = name  # type: ignore[assignment]
    with pytest.raises(TypeError, match="plugin 'p' contributed a tool named"):
        ToolRegistry().register(Named(), "p")


def _named(name: str) -> Tool:

    class Named(Tool):
        description = f"The tool {name}."
        parameters = {"type": "object", "properties": {}}  # noqa: RUF012

    Named.name = name
    return Named()


def _names(registry: ToolRegistry) -> list[str]:
    return [schema["name"] for schema in registry.schemas()]


def test_definitions_keep_one_order_whatever_the_order_of_registration() -> None:
    registry = ToolRegistry()
    for name in ("mcp_zeta", "read", "mcp_alpha", "edit"):
        registry.register(_named(name), "p")
    first = _names(registry)
    assert first == sorted(first)
    # a server restarting, an extension reloading: its tools go away and come back
    for name in ("mcp_zeta", "mcp_alpha"):
        registry.unregister(name)
    assert _names(registry) == ["edit", "read"]
    registry.register(_named("mcp_alpha"), "p")
    registry.register(_named("mcp_zeta"), "p")
    assert _names(registry) == first
    other = ToolRegistry()
    for name in reversed(first):
        other.register(_named(name), "p")
    assert other.schemas() == registry.schemas()


def test_definitions_go_by_the_plugins_first_contribution_then_by_name() -> None:
    registry = ToolRegistry()
    registry.register(_named("z_builtin"), "builtins")
    registry.register(_named("a_builtin"), "builtins")
    registry.register(_named("m_server"), "mcp")  # a server that came later
    registry.register(_named("b_builtin"), "builtins")
    assert _names(registry) == ["a_builtin", "b_builtin", "z_builtin", "m_server"]
    for name in ("z_builtin", "a_builtin", "b_builtin"):
        registry.unregister(name)
    registry.register(_named("a_builtin"), "builtins")
    assert _names(registry) == ["a_builtin", "m_server"]  # the plugin keeps its place
