"""Loading entry points reads each distribution's METADATA once (it is parsed on each read)."""

from __future__ import annotations

from email.message import Message
from typing import Any

import pytest

from rho_kernel import plugins
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

    @property
    def name(self) -> Any:
        return self.metadata["Name"]

    @property
    def version(self) -> Any:
        return self.metadata["Version"]


class _EntryPoint:
    def __init__(self, name: str, dist: _Dist) -> None:
        self.name, self.dist, self.value = name, dist, f"{name}_module"

    def load(self) -> object:
        return type(self.name, (), {})()


def _host_loading(monkeypatch: pytest.MonkeyPatch, *eps: _EntryPoint) -> PluginHost:
    monkeypatch.setattr(plugins, "entry_points", lambda group: list(eps))
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
    assert plugins._metadata_identity(dist) == identity


def test_a_plugin_with_broken_metadata_still_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host_loading(monkeypatch, _EntryPoint("delta", _Dist("d", "1", broken=True)))
    assert "delta" in {info.name for info in host.plugins()}
    assert host.distributions["delta"] is None and host.versions["delta"] is None
