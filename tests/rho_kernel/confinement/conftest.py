"""Fixtures of the confinement tests: a project and a home directory outside /tmp (in the
suite's `outside_tmp`)."""

from __future__ import annotations

from pathlib import Path

import pytest


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
