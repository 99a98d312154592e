"""Plugins add keys to `getState` through `rho_state`: merged at the top level; a clash,
a value that is not JSON or a raising plugin is reported and leaves the rest intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel import hookimpl
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_rpc.app import collect_methods
from rho_rpc.protocol.base import NoParams


class Mcp:
    @hookimpl
    def rho_state(self) -> dict[str, Any]:
        return {"mcp": {"servers": [{"name": "docs", "state": "running"}]}}


class Greedy:
    """Gives a key of its own, getState's `model`, the `mcp` of a plugin loading first, a
    value json cannot encode, NaN, a key that is not text, and null."""

    @hookimpl
    def rho_state(self) -> dict[Any, Any]:
        return {
            "greedy": 1,
            "model": "mine",
            "mcp": "mine too",
            "handle": object(),
            "ratio": float("nan"),
            3: "three",
            "nothing": None,
        }


class Broken:
    @hookimpl
    def rho_state(self) -> dict[str, Any]:
        raise RuntimeError("no state today")


class NotADict:
    @hookimpl
    def rho_state(self) -> list[str]:
        return ["mcp"]


def _runtime(tmp_path: Path, *plugins: tuple[str, object]) -> Runtime:
    options = RuntimeOptions(
        cwd=tmp_path,
        root=tmp_path,
        home=tmp_path,
        ephemeral=True,
        model="m",
        entry_points=False,
        plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
        plugin_objects=plugins,
    )
    return Runtime.build(options)


async def _state(runtime: Runtime) -> dict[str, Any]:
    state: dict[str, Any] = await collect_methods(runtime)["getState"].handler(NoParams())
    return state


async def test_a_plugins_keys_join_the_result(tmp_path: Path) -> None:
    state = await _state(_runtime(tmp_path, ("rho-mcp", Mcp())))
    assert state["mcp"] == {"servers": [{"name": "docs", "state": "running"}]}
    assert state["cwd"] == str(tmp_path.resolve())


async def test_without_plugin_keys_the_result_is_getstates_own(tmp_path: Path) -> None:
    from rho_rpc.protocol.state import GetStateResult

    state = await _state(_runtime(tmp_path))
    assert set(state) <= set(GetStateResult.model_fields)


async def test_clashes_and_values_that_are_not_json_are_reported_once_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runtime = _runtime(tmp_path, ("rho-mcp", Mcp()), ("greedy", Greedy()))
    first = await _state(runtime)
    second = await _state(runtime)
    assert first == second
    assert first["greedy"] == 1
    assert first["model"] == runtime.model
    assert first["mcp"] == {"servers": [{"name": "docs", "state": "running"}]}
    assert not {"handle", "ratio", "3", "nothing"} & set(first)
    err = capsys.readouterr().err
    skipped = "rho: warning: getState key {} of plugin 'greedy' skipped: {}"
    for key, problem in (
        ("'model'", "getState has a member of that name"),
        ("'mcp'", "plugin 'rho-mcp', which loads first, gives that key"),
        ("'handle'", "its value is not JSON (TypeError: Object of type object is not JSON"),
        ("'ratio'", "its value is not JSON (ValueError: Out of range float values"),
        ("of type int", "it is not text"),
    ):
        assert err.count(skipped.format(key, problem)) == 1, key


async def test_a_raising_or_confused_plugin_is_reported_and_the_others_keys_stay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runtime = _runtime(tmp_path, ("broken", Broken()), ("list", NotADict()), ("rho-mcp", Mcp()))
    state = await _state(runtime)
    assert "mcp" in state and "model" in state
    err = capsys.readouterr().err
    assert "plugin 'broken' failed in rho_state: no state today" in err
    assert "plugin 'list' returned list from rho_state; expected a dict (ignored)" in err
