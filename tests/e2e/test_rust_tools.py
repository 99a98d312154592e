"""cargo_check through the real `rho` process: approval, typed details and the rendering,
with commands confined by the OS sandbox and unconfined."""

from __future__ import annotations

from pathlib import Path

import pytest
from rho_process import start_scripted  # type: ignore[import-not-found]
from rust_crates import TOOLCHAIN_ENV, TYPE_ERROR, write_crate  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


@pytest.fixture(params=["confined", "off"])
def sandbox_mode(request: pytest.FixtureRequest, home: Path) -> str:
    """Runs a test with commands confined (the default) and with `[sandbox] mode = "off"`."""
    if request.param == "off":
        (home / ".rho").mkdir(exist_ok=True)
        (home / ".rho" / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    return str(request.param)


def test_cargo_check_reports_a_type_error_after_approval(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, sandbox_mode: str
) -> None:
    write_crate(project, {"src/main.rs": TYPE_ERROR})
    server.add(tool_call_reply("cargo_check", {}), text_reply("done"))
    env = {**TOOLCHAIN_ENV, "CARGO_TARGET_DIR": str(project / "target")}
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    rho.request("prompt", {"message": "check it"})
    approval = rho.notification("approval/request")["params"]
    assert (approval["tool"], approval["risk"]) == ("cargo_check", "destructive")
    rho.answer_approval(approval)
    result = rho.notification("tool/result", timeout=120)["params"]
    assert result["is_error"] is True
    assert result["output"] == (
        "cargo_check: 1 error, 0 warnings\n\n"
        "src/main.rs:2:18 error[E0308]: mismatched types — expected `u32`, found `&str`"
    )
