"""Fixtures that start the real `rho` process against a scripted server on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from openrpc_check import drift  # type: ignore[import-not-found]
from rho_process import RhoProcess  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]
from shared_rho import SharedRho, SharedRhos  # type: ignore[import-not-found]

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
def run_anyway(home: Path) -> Path:
    """The user's config with `[sandbox] require = false` (`sandboxes.RUN_ANYWAY`), for a test
    that runs commands without being about confinement: where no OS sandbox works, its commands
    run as the rules and mode say instead of each asking."""
    return user_config(home)


@pytest.fixture
def start_rho(project: Path, home: Path) -> Iterator[Callable[..., RhoProcess]]:
    started: list[RhoProcess] = []

    def start(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        prefix: list[str] | None = None,
    ) -> RhoProcess:
        process = RhoProcess(list(args), cwd=cwd or project, home=home, env=env, prefix=prefix)
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


@pytest.fixture(scope="module")
def _shared_rhos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedRhos]:
    pool = SharedRhos(tmp_path_factory.mktemp("shared-rho"))
    yield pool
    problems = pool.close()
    if problems:
        pytest.fail("shared rho processes:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def shared_rho(_shared_rhos: SharedRhos) -> Iterator[Callable[..., SharedRho]]:
    """`shared_rho(*args, user_config=, env=, models=)`: a rho shared by the module's tests
    that need the same flags, HOME config and env, idle in a new session of its own, its
    server's script empty (see shared_rho.py). What it sends is checked like `start_rho`'s."""
    used: list[SharedRho] = []

    def get(*args: str, **options: Any) -> SharedRho:
        shared = _shared_rhos.get(*args, **options)
        used.append(shared)
        return shared

    yield get
    drifted = [problem for shared in used for problem in shared.take_problems()]
    if drifted:
        pytest.fail(
            "rho sent messages that docs/openrpc.json does not describe:\n" + "\n".join(drifted),
            pytrace=False,
        )
