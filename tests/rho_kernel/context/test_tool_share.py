"""The share of the prompt budget the tool definitions take, per contributing pack."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rho_kernel import hookimpl, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.context.tool_share import tool_share
from rho_kernel.loop.agent import tool_definition_bytes
from rho_kernel.loop.result import AgentError
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_kernel.testing import in_memory_session
from rho_kernel.tools.registry import ToolRegistry


def _tool(name: str, words: int) -> object:
    def run(text: str) -> str:
        return text

    run.__name__ = name
    run.__doc__ = " ".join(["word"] * words)
    return tool(risk="read")(run)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(_tool("small_one", 5), "tiny-pack")  # type: ignore[arg-type]
    for index in range(3):
        registry.register(_tool(f"huge_{index}", 400), "huge-pack")  # type: ignore[arg-type]
    registry.register(_tool("mid_one", 200), "mid-pack")  # type: ignore[arg-type]
    return registry


def test_packs_are_counted_and_ordered_biggest_first() -> None:
    registry = _registry()
    share = tool_share(registry, 100_000, 4.0)
    assert [(p.plugin, p.tools) for p in share.packs] == [
        ("huge-pack", 3), ("mid-pack", 1), ("tiny-pack", 1)
    ]  # fmt: skip
    assert share.tokens == math.ceil(tool_definition_bytes(registry.schemas()) / 4.0)
    assert share.packs[0].tokens > share.packs[1].tokens > share.packs[2].tokens
    assert not share.over_half and share.warning() is None


def test_over_half_the_budget_is_said_naming_the_biggest_packs() -> None:
    registry = _registry()
    tokens = tool_share(registry, 100_000, 4.0).tokens
    exactly_half = tool_share(registry, tokens * 2, 4.0)
    assert not exactly_half.over_half and exactly_half.warning() is None
    share = tool_share(registry, tokens * 2 - 1, 4.0)
    warning = share.warning()
    assert share.over_half and warning is not None
    assert f"take {tokens} of the {tokens * 2 - 1}-token prompt budget" in warning
    assert warning.index("huge-pack") < warning.index("mid-pack") < warning.index("tiny-pack")
    assert "huge-pack (" in warning and "3 tools)" in warning


async def test_the_runtime_warns_once(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runtime = Runtime.build(
        RuntimeOptions(
            cwd=tmp_path, root=tmp_path, model="m", endpoint="http://127.0.0.1:9/v1",
            ephemeral=True, entry_points=False, token_budget=256,
            config=RhoConfig.model_validate({"agent": {"completion_reserve": 64}}),
            plugin_objects=[("wide", _Wide())],
        )
    )  # fmt: skip
    runtime.session = in_memory_session(tmp_path)
    capsys.readouterr()
    share = runtime.tool_share()
    assert share.over_half and share.packs[0].plugin == "wide"
    try:
        for _ in range(3):  # the definitions leave no room: each prompt fails before a request
            with pytest.raises(AgentError):
                await runtime.prompt("hello")
    finally:
        await runtime.close_connections()
    err = capsys.readouterr().err
    assert err.count("the tool definitions alone take") == 1 and "wide (" in err


class _Wide:
    @hookimpl
    def rho_register_tools(self) -> list[object]:
        return [_tool(f"wide_{index}", 100) for index in range(4)]
