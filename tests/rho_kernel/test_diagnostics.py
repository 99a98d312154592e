"""One stderr prefix for every diagnostic."""

from __future__ import annotations

import pytest

from rho_kernel import diagnostics


def test_each_level_has_its_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    diagnostics.info("session: /x")
    diagnostics.warn("careful")
    diagnostics.error("broken")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "rho: session: /x",
        "rho: warning: careful",
        "rho: error: broken",
    ]
