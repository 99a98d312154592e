"""ToolRegistry: attribution and duplicate names."""

from __future__ import annotations

import pytest

from rho_kernel import tool
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
