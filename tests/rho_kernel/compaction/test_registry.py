"""Strategies come from plugins: the kernel's own, third parties, and broken contributions."""

from __future__ import annotations

from typing import Any

import pytest

from rho_kernel import hookimpl
from rho_kernel.compaction import DuplicateStrategy, collect_strategies
from rho_kernel.plugins import PluginHost


class Named:
    def __init__(self, name: Any) -> None:
        self.name = name

    async def summarize(self, request: Any) -> None:
        return None


class SyncSummarize:
    name = "sync"

    def summarize(self, request: Any) -> None:
        return None


def _host(*plugins: object) -> tuple[PluginHost, list[str]]:
    reports: list[str] = []
    host = PluginHost(autoload=False, report=reports.append)
    host.load_defaults()
    for index, plugin in enumerate(plugins):
        host.register(plugin, f"third-{index}")
    return host, reports


class Contributes:
    def __init__(self, *items: object) -> None:
        self.items = list(items)

    @hookimpl
    def rho_register_compaction_strategies(self) -> list[object]:
        return self.items


def test_the_kernel_registers_mechanical_and_llm_as_a_plugin() -> None:
    host, _ = _host()
    assert set(collect_strategies(host)) == {"mechanical", "llm"}
    info = {plugin.name: plugin.hooks for plugin in host.plugins()}
    assert "rho_register_compaction_strategies" in info["rho.compaction"]


def test_the_kernel_strategies_can_be_disabled_by_name() -> None:
    host = PluginHost(autoload=False, disabled=["rho.compaction"])
    host.load_defaults()
    assert collect_strategies(host) == {}


def test_a_third_party_strategy_joins_them() -> None:
    host, _ = _host(Contributes(Named("haiku")))
    assert set(collect_strategies(host)) == {"mechanical", "llm", "haiku"}


def test_unusable_contributions_are_reported_and_skipped() -> None:
    host, reports = _host(Contributes(Named(""), Named(3), SyncSummarize(), "text"))
    assert set(collect_strategies(host)) == {"mechanical", "llm"}
    assert len(reports) == 4
    assert "plugin 'third-0' returned Named from rho_register_compaction_strategies" in reports[0]
    assert "not `async def`" in reports[2]
    assert "returned str" in reports[3]


def test_a_name_registered_twice_names_both_plugins() -> None:
    host, _ = _host(Contributes(Named("mechanical")))
    with pytest.raises(
        DuplicateStrategy,
        match=r"'mechanical' is registered by both plugin 'third-0' and plugin 'rho\.compaction'",
    ):
        collect_strategies(host)
