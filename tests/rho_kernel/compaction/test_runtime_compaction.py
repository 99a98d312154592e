"""The runtime: strategies collected at startup, `compaction_mode` checked, `compact()`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel import hookimpl
from rho_kernel.compaction import UnknownStrategy
from rho_kernel.messages import ChatMessage
from rho_kernel.runtime import Runtime, RuntimeOptions, StartupError
from rho_kernel.session import CompactionPayload, Session


class Named:
    def __init__(self, name: str) -> None:
        self.name = name

    async def summarize(self, request: Any) -> dict[str, Any]:
        return {"notes": f"by {self.name}"}


class Contributes:
    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl
    def rho_register_compaction_strategies(self) -> list[object]:
        return [Named(self.name)]


def _build(project: Path, home: Path, config: str = "", **kwargs: Any) -> Runtime:
    (home / ".rho").mkdir(parents=True, exist_ok=True)
    (home / ".rho" / "config.toml").write_text(config)
    options = RuntimeOptions(
        cwd=project, root=project, home=home, endpoint="http://127.0.0.1:9/v1", **kwargs
    )
    return Runtime.build(options)


def test_an_unknown_compaction_mode_stops_startup(project: Path, home: Path) -> None:
    with pytest.raises(
        StartupError, match=r'compaction_mode = "haiku".*available: llm, mechanical'
    ):
        _build(project, home, '[agent]\ncompaction_mode = "haiku"\n')


def test_a_plugin_strategy_can_be_the_compaction_mode(project: Path, home: Path) -> None:
    runtime = _build(
        project,
        home,
        '[agent]\ncompaction_mode = "haiku"\n',
        ephemeral=True,
        plugin_objects=(("haiku-plugin", Contributes("haiku")),),
    )
    assert set(runtime.compaction_strategies or {}) == {"haiku", "llm", "mechanical"}


def test_a_strategy_name_registered_twice_stops_startup(project: Path, home: Path) -> None:
    with pytest.raises(StartupError, match="'llm' is registered by both plugin 'dup'"):
        _build(project, home, plugin_objects=(("dup", Contributes("llm")),))


async def test_compact_uses_the_configured_mode_and_keeps_the_session_file(
    project: Path, home: Path
) -> None:
    runtime = _build(
        project,
        home,
        '[agent]\ncompaction_mode = "haiku"\n',
        plugin_objects=(("haiku-plugin", Contributes("haiku")),),
    )
    session = runtime.session
    session.append_message(ChatMessage.user("first"))
    session.append_message(ChatMessage.assistant("y" * 2000))
    session.append_message(ChatMessage.user("second"))
    session.append_message(ChatMessage.assistant("z"))
    old_leaf = session.leaf_id
    outcome = await runtime.compact()
    assert outcome.strategy == "haiku" and outcome.from_leaf == old_leaf
    assert session.path_messages()[2].text.endswith("<context>\nby haiku\n<context:end>")
    with pytest.raises(UnknownStrategy):
        await runtime.compact("nope")
    assert (await runtime.compact("mechanical")).compacted is False  # nothing left
    path = session.path
    await runtime.aclose()
    reopened = Session.open(path)  # type: ignore[arg-type]
    assert isinstance(reopened.path_entries()[2].payload, CompactionPayload)
    assert old_leaf in reopened.entries
    reopened.close()
