"""rho's pytest plugin (entry point `pytest11: rho`): fixtures for testing rho plugins.

- `scripted_server`: a started `ScriptedServer` on 127.0.0.1, stopped after the test.
- `rho_root`: an empty project directory (a `tmp_path` with a `.git` marker).
- `approve_gate` / `deny_gate`: fixed approval gates.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.testing.gates import FixedGate, approve_all, deny_all
from rho_kernel.testing.server import ScriptedServer


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A scripted OpenAI-compatible server; add replies with `.add(...)`."""
    server = ScriptedServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def rho_root(tmp_path: Path) -> Path:
    """A fresh project root."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root.resolve()


@pytest.fixture
def approve_gate() -> FixedGate:
    """A gate approving every call."""
    return approve_all()


@pytest.fixture
def deny_gate() -> FixedGate:
    """A gate denying every call."""
    return deny_all()
