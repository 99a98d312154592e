"""Fixtures of the confinement tests: a project and a home directory outside /tmp.

A confined command gets its own empty /tmp, which would hide (rather than refuse) anything
under the real /tmp, so the files these tests confine live under /var/tmp.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A fresh canonical directory under /var/tmp, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="rho-confinement-", dir="/var/tmp")).resolve()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def project(outside_tmp: Path) -> Path:
    """A project root with a `.git` directory."""
    root = outside_tmp / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def home(outside_tmp: Path) -> Path:
    """An empty home directory."""
    path = outside_tmp / "home"
    path.mkdir()
    return path
