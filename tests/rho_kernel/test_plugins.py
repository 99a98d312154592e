"""PluginHost: built-ins, entry points, broken plugins, attribution."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from rho_kernel import hookimpl, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.plugins import DEFAULT_PLUGINS, PluginHost


def _host() -> tuple[PluginHost, list[str]]:
    reports: list[str] = []
    host = PluginHost(autoload=False, report=reports.append)
    return host, reports


def test_defaults_register_under_their_names() -> None:
    host, reports = _host()
    host.load_defaults()
    names = {info.name for info in host.plugins()}
    assert {name for name, _ in DEFAULT_PLUGINS} <= names
    assert reports == []


def test_a_disabled_default_is_not_registered() -> None:
    host = PluginHost(autoload=False, disabled=["rho.approval"])
    host.load_defaults()
    assert "rho.approval" not in {info.name for info in host.plugins()}


def test_misspelled_hook_is_rejected_and_reported() -> None:
    class Typo:
        @hookimpl
        def rho_register_tool(self) -> list[object]:  # missing the final "s"
            return []

    host, reports = _host()
    assert host.register(Typo(), "typo") is False
    assert "typo" not in {info.name for info in host.plugins()}
    assert any("typo" in line and "rho_register_tool" in line for line in reports)


def test_a_raising_implementation_is_skipped_and_the_others_still_count() -> None:
    @tool
    def ok_tool() -> str:
        """Fine."""
        return "ok"

    class Broken:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            raise RuntimeError("boom")

    class Good:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            return [ok_tool]

    host, reports = _host()
    host.register(Broken(), "broken")
    host.register(Good(), "good")
    items = host.collect("rho_register_tools", config=RhoConfig(), root=Path("."))
    assert items == [("good", ok_tool)]
    assert any("broken" in line and "boom" in line for line in reports)


def test_a_non_list_contribution_is_reported_and_ignored() -> None:
    class Wrong:
        @hookimpl
        def rho_register_tools(self) -> object:
            return "not a list"

    host, reports = _host()
    host.register(Wrong(), "wrong")
    assert host.collect("rho_register_tools", config=RhoConfig(), root=Path(".")) == []
    assert any("wrong" in line and "expected a list" in line for line in reports)


def test_entry_point_that_fails_to_import_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = tmp_path / "broken_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rho]\nbroken = broken_plugin_mod\n")
    (tmp_path / "broken_plugin_mod.py").write_text("raise ImportError('missing dependency xyz')\n")
    (tmp_path / "fine-2.0.dist-info").mkdir()
    (tmp_path / "fine-2.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fine\nVersion: 2.0\n"
    )
    (tmp_path / "fine-2.0.dist-info" / "entry_points.txt").write_text(
        "[rho]\nfine = fine_plugin_mod\n"
    )
    (tmp_path / "fine_plugin_mod.py").write_text(
        textwrap.dedent(
            """
            from rho_kernel import hookimpl

            @hookimpl
            def rho_system_prompt_fragments():
                return ["from fine"]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    reports: list[str] = []
    host = PluginHost(autoload=True, only=["broken", "fine"], report=reports.append)
    host.load_entrypoints()
    infos = {info.name: info for info in host.plugins()}
    assert "broken" not in infos
    assert infos["fine"].version == "2.0"
    assert infos["fine"].hooks == ["rho_system_prompt_fragments"]
    assert any("broken" in line and "missing dependency xyz" in line for line in reports)
    assert [
        f
        for _, f in host.collect("rho_system_prompt_fragments", config=RhoConfig(), root=Path("."))
    ] == ["from fine"]
    sys.modules.pop("fine_plugin_mod", None)


def test_autoload_switch_loads_no_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHO_DISABLE_PLUGIN_AUTOLOAD", "1")
    host = PluginHost()
    host.load_entrypoints()
    assert host.plugins() == []


async def test_rewrites_chain_and_the_first_block_wins() -> None:
    from rho_kernel import Block, Rewrite, ToolResult

    seen: list[dict[str, object]] = []

    class Double:
        @hookimpl
        def rho_before_tool_call(self, arguments):  # type: ignore[no-untyped-def]
            seen.append(dict(arguments))
            return Rewrite({"n": arguments["n"] * 2})

    class Block7:
        @hookimpl
        def rho_before_tool_call(self, arguments):  # type: ignore[no-untyped-def]
            seen.append(dict(arguments))
            return Block("seven") if arguments["n"] == 7 else None

    class Suffix:
        @hookimpl
        def rho_after_tool_call(self, result):  # type: ignore[no-untyped-def]
            return ToolResult(result.output + "!")

    host, _ = _host()
    host.register(Block7(), "block7")  # registered first: called last
    host.register(Double(), "double")
    host.register(Suffix(), "suffix-1")
    host.register(Suffix(), "suffix-2")
    assert await host.intercept_async(None, {"n": 3}, None) == {"n": 6}
    assert seen == [{"n": 3}, {"n": 6}]
    assert await host.intercept_async(None, {"n": 3.5}, None) == Block("seven")
    assert host.after_tool_call(None, ToolResult("ok")).output == "ok!!"


def _installed(site: Path, entry: str, distribution: str) -> None:
    """Install a plugin module under entry point `entry` of `distribution` into `site`."""
    module = f"{entry.replace('-', '_')}_mod"
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[rho]\n{entry} = {module}\n")
    (site / f"{module}.py").write_text("")


@pytest.mark.parametrize(
    ("value", "loaded"),
    [
        ("alpha", {"alpha"}),  # an entry-point name
        ("Beta_Dist", {"beta"}),  # a distribution name, as packaging compares names
        ("alpha, beta-dist", {"alpha", "beta"}),
        ("alpha gamma", {"alpha", "gamma"}),
        ("", set()),  # set but empty: no entry-point plugin at all
        ("nobody", set()),
    ],
)
def test_rho_plugins_names_the_only_entry_points_that_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, loaded: set[str]
) -> None:
    for entry in ("alpha", "beta", "gamma"):
        _installed(tmp_path, entry, f"{entry}-dist")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("RHO_PLUGINS", value)
    host = PluginHost()
    host.load_defaults()
    host.load_entrypoints()
    names = {info.name for info in host.plugins()}
    assert names & {"alpha", "beta", "gamma"} == loaded
    assert "rho.approval" in names  # built-ins always load
    assert "rho-tools-fs" not in names  # installed, but not named
    assert host.not_loading() == (
        "RHO_PLUGINS is set and only the plugins it names load; add it there"
    )


def test_without_rho_plugins_every_entry_point_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(tmp_path, "alpha", "alpha-dist")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("RHO_PLUGINS")
    host = PluginHost()
    host.load_entrypoints()
    assert {"alpha", "rho-tools-fs"} <= {info.name for info in host.plugins()}
    assert host.not_loading() is None
