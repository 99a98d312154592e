"""Finding the installed plugins: each distribution's METADATA is read once, and what was
found is remembered between starts until the environment changes."""

from __future__ import annotations

import importlib.metadata
import json
import os
import py_compile
import sys
from email.message import Message
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rho_kernel import entry_point_cache
from rho_kernel.entry_point_cache import FoundEntryPoint, discover
from rho_kernel.plugins import PluginHost


class _Dist:
    """A distribution whose `metadata` counts its reads, as importlib's parses on each."""

    def __init__(self, name: str | None, version: str | None, broken: bool = False) -> None:
        self.reads = 0
        self._fields = {"Name": name, "Version": version}
        self._broken = broken

    @property
    def metadata(self) -> Message:
        self.reads += 1
        if self._broken:
            raise OSError("METADATA unreadable")
        message = Message()
        for key, value in self._fields.items():
            if value is not None:
                message[key] = value
        return message


class _EntryPoint:
    def __init__(self, name: str, dist: _Dist) -> None:
        self.name, self.dist, self.value = name, dist, f"{name}_module"


def _host_loading(monkeypatch: pytest.MonkeyPatch, *eps: _EntryPoint) -> PluginHost:
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: list(eps))
    for ep in eps:
        monkeypatch.setitem(sys.modules, ep.value, ModuleType(ep.value))
    host = PluginHost(autoload=True, only=None, report=lambda _: None)
    host.only = None
    host.load_entrypoints()
    return host


def test_each_entry_points_metadata_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    alpha, beta = _Dist("alpha-dist", "1.2"), _Dist("beta-dist", "3.4")
    host = _host_loading(monkeypatch, _EntryPoint("alpha", alpha), _EntryPoint("beta", beta))
    assert (alpha.reads, beta.reads) == (1, 1)
    assert host.distributions == {"alpha": "alpha-dist", "beta": "beta-dist"}
    assert host.versions == {"alpha": "1.2", "beta": "3.4"}


@pytest.mark.parametrize(
    ("dist", "identity"),
    [
        (_Dist("gamma-dist", None), ("gamma-dist", None)),
        (_Dist(None, "5.0"), (None, "5.0")),
        (_Dist(None, None), (None, None)),
        (_Dist("x", "1", broken=True), (None, None)),
        (None, (None, None)),
    ],
)
def test_missing_or_broken_metadata_gives_none(
    dist: _Dist | None, identity: tuple[Any, ...]
) -> None:
    assert entry_point_cache._identity(dist) == identity


def test_a_plugin_with_broken_metadata_still_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host_loading(monkeypatch, _EntryPoint("delta", _Dist("d", "1", broken=True)))
    assert "delta" in {info.name for info in host.plugins()}
    assert host.distributions["delta"] is None and host.versions["delta"] is None


# ── remembered between starts ────────────────────────────────────────────────


def _install(site: Path, entry: str, module_text: str = "") -> None:
    """A distribution `<entry>-dist` 1.0 whose `rho` entry point `entry` is `<entry>_mod`."""
    info = site / f"{entry}_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {entry}-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[rho]\n{entry} = {entry}_mod\n")
    (site / f"{entry}_mod.py").write_text(module_text)
    py_compile.compile(str(site / f"{entry}_mod.py"))  # compiled, as an installer leaves it


def _touch_later(path: Path) -> None:
    """Move `path`'s modification time on, as adding a file would (without waiting)."""
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    for name in ("alpha_mod", "beta_mod"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return folder


def _loaded(cache: Path, reports: list[str] | None = None) -> dict[str, str | None]:
    host = PluginHost(
        autoload=True,
        only=["alpha", "beta"],
        report=(reports if reports is not None else []).append,
        entry_point_cache=cache,
    )
    host.load_entrypoints()
    return {info.name: info.distribution for info in host.plugins()}


def _no_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(group: str) -> Any:
        raise AssertionError("the installed metadata was read")

    monkeypatch.setattr(importlib.metadata, "entry_points", refuse)


def test_a_second_start_finds_the_plugins_without_reading_metadata(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install(site, "alpha")
    cache = tmp_path / "entry-points.json"
    assert _loaded(cache) == {"alpha": "alpha-dist"}
    assert cache.stat().st_mode & 0o777 == 0o600
    _no_metadata(monkeypatch)
    assert _loaded(cache) == {"alpha": "alpha-dist"}


def test_installing_a_plugin_changes_the_environment_and_it_is_found(
    site: Path, tmp_path: Path
) -> None:
    _install(site, "alpha")
    cache = tmp_path / "entry-points.json"
    assert _loaded(cache) == {"alpha": "alpha-dist"}
    _install(site, "beta")
    _touch_later(site)  # the new .dist-info changed the folder (on a coarse clock too)
    assert _loaded(cache) == {"alpha": "alpha-dist", "beta": "beta-dist"}


def test_a_remembered_plugin_that_no_longer_imports_sends_rho_back_to_the_metadata(
    site: Path, tmp_path: Path
) -> None:
    _install(site, "alpha")
    cache = tmp_path / "entry-points.json"
    assert _loaded(cache) == {"alpha": "alpha-dist"}
    stale = json.loads(cache.read_text())
    stale["groups"]["rho"].append(
        {"name": "beta", "value": "gone_mod", "distribution": "beta-dist", "version": "1.0"}
    )
    cache.write_text(json.dumps(stale))
    reports: list[str] = []
    assert _loaded(cache, reports) == {"alpha": "alpha-dist"}
    assert reports == []  # uninstalled since: nothing to report
    remembered = [p["name"] for p in json.loads(cache.read_text())["groups"]["rho"]]
    assert "alpha" in remembered and "beta" not in remembered  # the metadata was read again


def test_a_plugin_that_fails_to_import_is_still_reported_once(site: Path, tmp_path: Path) -> None:
    _install(site, "alpha", "raise ImportError('missing dependency xyz')\n")
    cache = tmp_path / "entry-points.json"
    for _ in range(2):
        reports: list[str] = []
        assert _loaded(cache, reports) == {}
        assert len(reports) == 1
        assert "alpha" in reports[0] and "missing dependency xyz" in reports[0]


_HOSTILE_POINT = b'[{"name": 1, "value": "os", "distribution": null, "version": null}]'


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b"[]", b'{"format": 1}', b'{"format": 99, "groups": {}}', b"\xff\xfe"],
)
def test_an_unreadable_cache_is_ignored_and_replaced(
    site: Path, tmp_path: Path, content: bytes
) -> None:
    _install(site, "alpha")
    cache = tmp_path / "entry-points.json"
    cache.write_bytes(content)
    assert _loaded(cache) == {"alpha": "alpha-dist"}
    assert json.loads(cache.read_text())["format"] == entry_point_cache.FORMAT


def test_a_remembered_entry_that_is_not_text_is_ignored(site: Path, tmp_path: Path) -> None:
    _install(site, "alpha")
    cache = tmp_path / "entry-points.json"
    _loaded(cache)
    data = json.loads(cache.read_text())
    data["groups"]["rho"] = json.loads(_HOSTILE_POINT)
    cache.write_text(json.dumps(data))  # the fingerprint still matches
    assert _loaded(cache) == {"alpha": "alpha-dist"}


def test_nothing_is_created_where_no_folder_exists(site: Path, tmp_path: Path) -> None:
    _install(site, "alpha")
    cache = tmp_path / "missing" / "entry-points.json"
    assert _loaded(cache) == {"alpha": "alpha-dist"}
    assert not cache.parent.exists()


def test_a_found_entry_point_loads_a_dotted_attribute() -> None:
    point = FoundEntryPoint("x", "os.path:join", None, None)
    assert point.load() is os.path.join
    assert FoundEntryPoint("y", "json", None, None).load() is json
    assert discover("rho.no-such-group", None) == []
