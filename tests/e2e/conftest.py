"""Fixtures that start the real `rho` process against a scripted server on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from openrpc_check import drift  # type: ignore[import-not-found]
from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root.resolve()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def start_rho(project: Path, home: Path) -> Iterator[Callable[..., RhoProcess]]:
    started: list[RhoProcess] = []

    def start(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> RhoProcess:
        process = RhoProcess(list(args), cwd=cwd or project, home=home, env=env)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
    drifted = [problem for process in started for problem in drift(process.sent, process.raw)]
    if drifted:
        pytest.fail(
            "rho sent messages that docs/openrpc.json does not describe:\n" + "\n".join(drifted),
            pytrace=False,
        )


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A scripted model server on loopback for the test."""
    with ScriptedServer() as scripted:
        yield scripted
