"""cargo_check and cargo_fix through the real `rho` process: typed details and the rendering
(of live output too), confined by the OS sandbox (a read: no approval) and unconfined
(destructive: it asks)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from rust_crates import TOOLCHAIN_ENV, TYPE_ERROR, needs_cargo, write_crate  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


@pytest.fixture(params=["confined", "off"])
def sandbox_mode(request: pytest.FixtureRequest, home: Path) -> str:
    """Runs a test with commands confined (the default) and with `[sandbox] mode = "off"`."""
    if request.param == "confined" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (.ci/run installs it)")
    if request.param == "off":
        (home / ".rho").mkdir(exist_ok=True)
        (home / ".rho" / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    return str(request.param)


@needs_cargo
def test_cargo_check_reports_a_type_error_and_asks_only_unconfined(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, sandbox_mode: str
) -> None:
    write_crate(project, {"src/main.rs": TYPE_ERROR})
    server.add(tool_call_reply("cargo_check", {}), text_reply("done"))
    env = {**TOOLCHAIN_ENV, "CARGO_TARGET_DIR": str(project / "target")}
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    rho.request("prompt", {"message": "check it"})
    if sandbox_mode == "off":  # unconfined, building runs the repository's code: it asks
        approval = rho.notification("approval/request")["params"]
        assert (approval["tool"], approval["risk"]) == ("cargo_check", "destructive")
        rho.answer_approval(approval)
    result = rho.notification("tool/result", timeout=120)["params"]
    asked = any(m.get("method") == "approval/request" for m in rho.seen)
    assert asked == (sandbox_mode == "off")
    assert result["is_error"] is True
    assert result["output"] == (
        "cargo_check: 1 error, 0 warnings\n\n"
        "src/main.rs:2:18 error[E0308]: mismatched types — expected `u32`, found `&str`"
    )


@needs_cargo
def test_cargo_fix_live_output_is_rendered_diagnostics_not_json(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    source = "use std::collections::HashMap;\n\nfn unused() {}\n\nfn main() {}\n"
    write_crate(project, {"src/main.rs": source})
    server.add(tool_call_reply("cargo_fix", {}), text_reply("done"))
    env = {**TOOLCHAIN_ENV, "CARGO_TARGET_DIR": str(project / "target")}
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    rho.request("prompt", {"message": "fix it"})
    rho.answer_approval(rho.notification("approval/request")["params"])  # it edits sources
    result = rho.notification("tool/result", timeout=120)["params"]
    assert result["output"].startswith("cargo_fix: 1 fix in 1 file")
    outputs = [m["params"] for m in rho.seen if m.get("method") == "tool/output"]
    stdout = "".join(o["text"] for o in outputs if o["stream"] == "stdout")
    assert not [line for line in stdout.splitlines() if line.lstrip().startswith("{")]
    assert "src/main.rs:2:4 warning[dead_code]: function `unused` is never used" in stdout


def test_a_rust_project_gets_the_rust_tools_and_their_block_and_others_do_not(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(text_reply("plain"), text_reply("rusty"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "plain"
    assert rho.finish() == 0
    write_crate(project, {"src/main.rs": "fn main() {}\n"})
    rho = start_scripted(start_rho, server, "--ephemeral")
    assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "rusty"
    assert rho.finish() == 0
    plain, rusty = (r.json["messages"][0]["content"] for r in server.requests)
    assert "# Rust tooling" not in plain
    assert "# Rust tooling" in rusty and "cargo_check after each edit" in rusty
    # the tools themselves, like the block, only where a Cargo.toml is
    plain_tools, rusty_tools = (
        {t["function"]["name"] for t in r.json["tools"]} for r in server.requests
    )
    assert "read_file" in plain_tools and not any(name.startswith("cargo_") for name in plain_tools)
    assert {"cargo_check", "cargo_test", "rustdoc_lookup", "crates_io_lookup"} <= rusty_tools


ESCAPING_BUILD = """use std::io::Write;
fn main() {
    let target = std::path::Path::new(env!("ESCAPE_TARGET"));
    let outcome = std::fs::OpenOptions::new().create(true).write(true).open(target)
        .and_then(|mut f| f.write_all(b"written by a build script"));
    println!("cargo:warning=escape attempt: {}", if outcome.is_ok() { "wrote" } else { "refused" });
}
"""


def _start_escaping_build(
    start_rho: Any, server: ScriptedServer, outside_tmp: Path
) -> tuple[RhoProcess, Path, Path]:
    """rho on a crate whose build script tries to write `outside_tmp/escaped.txt`, asked to
    run cargo_check: the process, the project and the file the script aims at."""
    project = outside_tmp / "project"
    (project / ".git").mkdir(parents=True)
    target = outside_tmp / "escaped.txt"
    write_crate(project, {"src/main.rs": "fn main() {}\n", "build.rs": ESCAPING_BUILD})
    server.add(tool_call_reply("cargo_check", {}), text_reply("done"))
    env = {
        **TOOLCHAIN_ENV,
        "CARGO_TARGET_DIR": str(project / "target"),
        "ESCAPE_TARGET": str(target),
    }
    rho = start_scripted(start_rho, server, "--ephemeral", "--root", str(project), env=env)
    rho.request("prompt", {"message": "check"})
    return rho, project, target


@needs_cargo
def test_a_build_script_cannot_write_outside_the_project_when_confined(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path
) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (.ci/run installs it)")
    rho, _, target = _start_escaping_build(start_rho, server, outside_tmp)
    result = rho.notification("tool/result", timeout=120)["params"]
    assert "escape attempt: refused" in result["output"]
    assert result["output"].startswith("cargo_check: 0 errors, 1 warning")
    assert not target.exists()
    assert not any(m.get("method") == "approval/request" for m in rho.seen)
    assert rho.finish() == 0


def test_unconfined_a_build_asks_first_and_a_denial_runs_nothing(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path
) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    rho, project, target = _start_escaping_build(start_rho, server, outside_tmp)
    approval = rho.notification("approval/request")["params"]
    assert (approval["tool"], approval["risk"], approval["sandbox"]["mode"]) == (
        "cargo_check",
        "destructive",
        "off",
    )
    rho.answer_approval(approval, approved=False)
    result = rho.notification("tool/result")["params"]
    assert result["output"] == "Tool call denied by user."
    assert not target.exists() and not (project / "target").exists()
    assert rho.finish() == 0
