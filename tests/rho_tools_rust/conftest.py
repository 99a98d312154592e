"""Real crates for the Rust tool tests: the real toolchain, isolated build output.

The suite points HOME at a temporary folder; the toolchain stays where rustup put it
(`rust_crates.TOOLCHAIN_ENV`). Each test builds into its own target directory, so tests
never share build output.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from rust_crates import TOOLCHAIN_ENV, write_crate  # type: ignore[import-not-found]

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Tool, ToolContext, ToolResult

CrateMaker = Callable[..., Path]


@pytest.fixture(autouse=True)
def real_toolchain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """rustup and cargo find their homes although HOME is a temporary folder; no network,
    no inherited flags, a target folder per test."""
    for key, value in TOOLCHAIN_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path / "cargo-target"))
    monkeypatch.delenv("RUSTUP_TOOLCHAIN", raising=False)
    monkeypatch.delenv("RUSTFLAGS", raising=False)


@pytest.fixture
def crate(tmp_path: Path) -> CrateMaker:
    """Factory: `crate({"src/main.rs": "..."}, name="demo")` → the crate folder."""

    def make(files: dict[str, str], name: str = "demo", extra: str = "", sub: str = "") -> Path:
        return write_crate(tmp_path / "project" / sub, files, name, extra)

    return make


@pytest.fixture
def make_crate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CrateMaker:
    """`make_crate(files, name="demo", nightly=False, base=tmp_path)`: a crate in
    `base/crate` with `files` ({relative path: text}) and its own CARGO_TARGET_DIR."""

    def make(
        files: dict[str, str], name: str = "demo", nightly: bool = False, base: Path | None = None
    ) -> Path:
        root = (base or tmp_path) / "crate"
        extra = "\n[dependencies]\n"
        write_crate(root, files, name, extra)
        if nightly:
            (root / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "nightly"\n')
        monkeypatch.setenv("CARGO_TARGET_DIR", str(root / "target"))
        return root

    return make


@pytest.fixture
def call_tool() -> Callable[..., Awaitable[ToolResult]]:
    """`await call_tool(tool, root, **arguments)`: call a tool directly, unconfined, as
    outside the loop."""

    async def call(tool: Tool, root: Path, **arguments: object) -> ToolResult:
        ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
        return await tool.execute(dict(arguments), ctx)

    return call
