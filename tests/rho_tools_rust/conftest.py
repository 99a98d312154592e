"""Real crates for the Rust tool tests: the real toolchain, isolated build output.

The suite points HOME at a temporary folder; the toolchain stays where rustup put it.
Each crate builds into its own target directory, so tests never share build output.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Tool, ToolContext, ToolResult

_REAL_HOME = Path(os.path.expanduser("~"))
RUSTUP_HOME = os.environ.get("RUSTUP_HOME", str(_REAL_HOME / ".rustup"))
CARGO_HOME = os.environ.get("CARGO_HOME", str(_REAL_HOME / ".cargo"))

CrateMaker = Callable[..., Path]


@pytest.fixture(autouse=True)
def real_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    """rustup and cargo find their homes although HOME is a temporary folder."""
    monkeypatch.setenv("RUSTUP_HOME", RUSTUP_HOME)
    monkeypatch.setenv("CARGO_HOME", CARGO_HOME)
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")
    monkeypatch.delenv("RUSTUP_TOOLCHAIN", raising=False)


@pytest.fixture
def make_crate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CrateMaker:
    """`make_crate(files, name="demo", nightly=False, base=tmp_path)`: a crate in
    `base/crate` with `files` ({relative path: text}) and its own CARGO_TARGET_DIR."""

    def make(
        files: dict[str, str], name: str = "demo", nightly: bool = False, base: Path | None = None
    ) -> Path:
        root = (base or tmp_path) / "crate"
        root.mkdir()
        (root / "Cargo.toml").write_text(
            f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
        )
        if nightly:
            (root / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "nightly"\n')
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
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
