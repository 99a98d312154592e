"""Suite-wide settings: no installed third-party plugin leaks into in-process tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A fresh canonical directory under /var/tmp, removed afterwards.

    A confined command gets its own empty /tmp, which would hide (rather than refuse)
    anything under the real /tmp: files that sandbox tests confine live here instead.
    """
    path = Path(tempfile.mkdtemp(prefix="rho-test-", dir="/var/tmp")).resolve()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.delenv("RHO_MODEL", raising=False)
