"""Fixtures for the rho-tools-rust tests: the real toolchain, a target folder per test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rust_crates import TOOLCHAIN_ENV, write_crate  # type: ignore[import-not-found]


@pytest.fixture(autouse=True)
def _toolchain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in TOOLCHAIN_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "cargo-target"))
    monkeypatch.delenv("RUSTFLAGS", raising=False)


@pytest.fixture
def crate(tmp_path: Path) -> Callable[..., Path]:
    """Factory: `crate({"src/main.rs": "..."}, name="demo")` → the crate folder."""

    def make(files: dict[str, str], name: str = "demo", extra: str = "", sub: str = "") -> Path:
        return write_crate(tmp_path / "project" / sub, files, name, extra)

    return make
