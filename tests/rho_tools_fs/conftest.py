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
