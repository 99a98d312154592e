"""The `backend` fixture: run a sandbox test through directory fds and through the fallback."""

from __future__ import annotations

import pytest

from rho_kernel.security import pathwalk


@pytest.fixture(params=["dir-fds", "path-checks"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """`path-checks` is what platforms without `dir_fd` support (Windows) get."""
    if request.param == "path-checks":
        monkeypatch.setattr(pathwalk, "DIR_FD_SUPPORTED", False)
    return str(request.param)


@pytest.fixture(autouse=True)
def no_user_git_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """The user's own global git excludes never leak into a test."""
    home = tmp_path_factory.mktemp("git-home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    return home


@pytest.fixture(params=["ripgrep", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a search test with ripgrep and with the pure-Python fallback (`RHO_RG=""`)."""
    if request.param == "python":
        monkeypatch.setenv("RHO_RG", "")
    else:
        monkeypatch.delenv("RHO_RG", raising=False)
    return str(request.param)
