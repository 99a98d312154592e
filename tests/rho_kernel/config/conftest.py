"""Shared fixtures of the config tests: a home directory and a project with their files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from pydantic import BaseModel

from rho_kernel.config import (
    PROJECT_CONFIG,
    RhoConfig,
    load_config,
    project_config_path,
    user_config_path,
)
from rho_kernel.security import TrustStore


class Env:
    """A home dir and a project root, with helpers to write both config files."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.root = tmp_path / "project"
        self.home.mkdir()
        self.root.mkdir()
        self.warnings: list[str] = []

    def user(self, text: str) -> Path:
        return self._write(user_config_path(self.home), text)

    def project(self, text: str) -> Path:
        return self._write(project_config_path(self.root), text)

    @staticmethod
    def _write(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def trust(self) -> None:
        """Trust the project file as it is now (as `rho trust` does)."""
        data = project_config_path(self.root).read_bytes()
        TrustStore.load(self.home).trust(self.root, PROJECT_CONFIG, data)

    def load(self, sections: Mapping[str, type[BaseModel]] | None = None) -> RhoConfig:
        return load_config(self.root, home=self.home, warn=self.warnings.append, sections=sections)


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)
