"""The installed distribution: rho finds the plugin through its entry point."""

from __future__ import annotations

from importlib.metadata import distribution, entry_points
from pathlib import Path

from rho_kernel import PluginHost, RhoConfig

import rho_plugin_example
from rho_plugin_example import CallTally, plugin


def test_the_entry_point_names_the_hook_module():
    (point,) = [ep for ep in entry_points(group="rho") if ep.name == "rho-plugin-example"]
    assert point.value == "rho_plugin_example.plugin"
    assert point.dist is not None and point.dist.name == "rho-plugin-example"
    assert point.load() is plugin


def test_the_version_is_the_distribution_version():
    assert rho_plugin_example.__version__ == distribution("rho-plugin-example").version


def test_rho_loads_it_with_its_tools_observer_and_hooks(rho_root: Path):
    host = PluginHost(autoload=True)
    host.load_defaults()
    host.load_entrypoints()
    assert host.failures == []
    (info,) = [p for p in host.plugins() if p.name == "rho-plugin-example"]
    assert info.version == rho_plugin_example.__version__
    assert set(info.hooks) == {
        "rho_register_tools",
        "rho_register_observers",
        "rho_after_tool_call",
    }
    tools = host.collect("rho_register_tools", config=RhoConfig(), root=rho_root)
    mine = sorted(item.name for name, item in tools if name == "rho-plugin-example")
    assert mine == ["scratchpad", "word_count"]
    observers = host.collect("rho_register_observers", config=RhoConfig(), runtime=None)
    assert [type(o) for name, o in observers if name == "rho-plugin-example"] == [CallTally]
