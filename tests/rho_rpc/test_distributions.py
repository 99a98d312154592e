"""Telling rho's own distributions from third-party plugins."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rho_rpc.distributions import (
    RHO_DISTRIBUTIONS,
    disabling_config,
    foreign_plugins,
    normalize,
)

ROOT = Path(__file__).resolve().parents[2]


def test_rho_distributions_are_the_workspace_packages() -> None:
    names = {
        tomllib.loads(path.read_text())["project"]["name"]
        for path in (ROOT / "packages").glob("*/pyproject.toml")
    }
    assert {normalize(name) for name in names} == RHO_DISTRIBUTIONS


def test_names_are_normalized_as_packaging_does() -> None:
    assert normalize("Rho_Tools.FS") == "rho-tools-fs"
    assert normalize("acme__rho--plugin") == "acme-rho-plugin"


def _install(site: Path, dist_name: str, entry_points: str) -> None:
    dist = site / f"{dist_name.replace('-', '_')}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(entry_points)


def test_a_name_rho_uses_itself_is_never_reported_as_foreign(tmp_path: Path) -> None:
    _install(tmp_path, "acme-rho", "[rho]\nacme = acme\nrho-tools-fs = acme.fs\n")
    _install(tmp_path, "acme-other", "[console_scripts]\nacme-cli = acme.cli:main\n")
    _install(tmp_path, "Rho_Tools_FS", "[rho]\nrho-tools-fs = rho_tools_fs.plugin\n")
    assert foreign_plugins([str(tmp_path)]) == ["acme"]


def test_the_disabling_config_is_toml_listing_every_name() -> None:
    names = ["plain", 'quo"te', "back\\slash", "ünï", "tab\there"]
    assert tomllib.loads(disabling_config(names)) == {"plugins": {"disabled": names}}
    assert tomllib.loads(disabling_config([])) == {"plugins": {"disabled": []}}


def test_each_package_has_one_version_its_pyproject_s() -> None:
    import importlib
    from importlib.metadata import version

    for path in (ROOT / "packages").glob("*/pyproject.toml"):
        name = tomllib.loads(path.read_text())["project"]["name"]
        declared = tomllib.loads(path.read_text())["project"]["version"]
        module = importlib.import_module(name.replace("-", "_"))
        assert module.__version__ == version(name) == declared, name


def _site(tmp_path: Path, name: str, version: str, entry_points: str) -> Path:
    site = tmp_path / "site"
    dist = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (dist / "entry_points.txt").write_text(entry_points)
    return site


def test_the_version_text_names_every_installed_pack(tmp_path: Path) -> None:
    import sys
    from importlib.metadata import version

    from rho_rpc.distributions import version_text

    site = _site(tmp_path, "Acme_Rho.Plugin", "2.5", "[rho]\nacme = acme\n")
    other = _site(tmp_path / "x", "not-a-plugin", "9.9", "[console_scripts]\nx = x:main\n")
    text = version_text("1.2.3", [str(site), str(other), *sys.path])
    lines = text.splitlines()
    assert lines[0] == "rho 1.2.3"
    assert f"  rho-kernel {version('rho-kernel')}" in lines
    # Other plugins may be installed beside rho (CI runs the suite with the example plugin).
    own = [line.split()[0] for line in lines[1:] if not line.endswith("(third-party)")]
    assert own == sorted(RHO_DISTRIBUTIONS - {"rho-rpc"})
    third_party = [line for line in lines[1:] if line.endswith("(third-party)")]
    assert lines[-len(third_party) :] == third_party
    assert "  acme-rho-plugin 2.5 (third-party)" in third_party
    assert "not-a-plugin" not in text


def test_the_section_packs_rho_declares_are_the_tables_its_packs_read() -> None:
    # The hint for a missing pack's table comes from rho-rpc's metadata (the pack, missing,
    # cannot declare it): it lists exactly the tables rho's packs declare, each with its pack,
    # but rho-tools-fs's [tools] (rho without it warns that no tool pack is installed).
    from importlib.metadata import distribution

    from rho_kernel.config.sections import HOOK, SECTION_PACKS_GROUP
    from rho_kernel.plugins import PluginHost

    host = PluginHost(autoload=True, only=RHO_DISTRIBUTIONS, report=lambda _: None)
    host.load_entrypoints()
    declared: dict[str, str] = {}
    for plugin, tables in host.call_each(HOOK):
        pack = normalize(host.distributions.get(plugin) or "")
        assert pack in RHO_DISTRIBUTIONS, plugin
        declared.update(dict.fromkeys(tables, pack))
    points = distribution("rho-rpc").entry_points
    listed = {point.name: point.value for point in points if point.group == SECTION_PACKS_GROUP}
    assert declared.pop("tools") == "rho-tools-fs"
    assert listed == declared
    assert set(declared) >= {"memory", "extensions", "rust"}
