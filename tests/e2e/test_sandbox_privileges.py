"""No way out of the OS sandbox through privileges, through the real `rho` process and real
bubblewrap: a command (auto-approved or approved), a repository's build script during a
confined `cargo_check` (a read: nothing is asked), a project's toolchain and rustc wrapper,
and an extension's `runCommand`. These run as root in CI, the case where bubblewrap alone
used to leave every capability to the command."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from escapes import assert_contained, escape_script  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from rust_crates import TOOLCHAIN_ENV, needs_cargo, write_crate  # type: ignore[import-not-found]
from sandboxes import needs_sandbox  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

pytestmark = needs_sandbox


@pytest.fixture
def project(outside_tmp: Path) -> Path:
    root = outside_tmp / "project"
    (root / ".git" / "hooks").mkdir(parents=True)
    return root


@pytest.fixture
def home(outside_tmp: Path) -> Path:
    path = outside_tmp / "home"
    (path / ".rho").mkdir(parents=True)
    return path


@pytest.fixture
def outside(outside_tmp: Path) -> Path:
    """An empty directory beside the project, which nothing may write."""
    path = outside_tmp / "outside"
    path.mkdir()
    return path


AUTO_COMMANDS = '[approval.per_tool]\nrun_command = "auto"\n'


def _auto_commands(shared_rho: Any) -> tuple[RhoProcess, ScriptedServer, Path]:
    """The module's `--ephemeral` rho that runs commands unasked, fresh for this test (its
    exit status is checked when the module is done)."""
    shared = shared_rho("--ephemeral", user_config=AUTO_COMMANDS)
    return shared.rho, shared.server, shared.project


@pytest.mark.parametrize("approval", ["auto", "approved"])
def test_a_command_has_no_privileges_and_cannot_get_out(  # type: ignore[no-untyped-def]
    shared_rho, start_rho, server: ScriptedServer, project: Path, outside: Path, approval: str
) -> None:
    if approval == "auto":
        rho, server, project = _auto_commands(shared_rho)
    else:
        rho = start_scripted(start_rho, server, "--ephemeral")
    script = escape_script(project, outside)
    server.add(tool_call_reply("run_command", {"command": script}), text_reply("done"))
    rho.request("prompt", {"message": "go"})
    if approval == "approved":
        rho.answer_approval(rho.notification("approval/request")["params"])
    result = rho.notification("tool/result", timeout=60)["params"]
    assert result["output"].startswith("exit_code: 0\nCapEff:"), result["output"]
    assert_contained(result["output"], outside)
    if approval == "approved":
        assert rho.finish() == 0


def _cargo_check(start_rho: Any, server: ScriptedServer, project: Path) -> dict[str, Any]:
    """cargo_check in `project`, which must not ask; its result."""
    server.add(tool_call_reply("cargo_check", {}), text_reply("done"))
    env = {**TOOLCHAIN_ENV, "CARGO_TARGET_DIR": str(project / "target")}
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    rho.request("prompt", {"message": "check"})
    result: dict[str, Any] = rho.notification("tool/result", timeout=240)["params"]
    assert not any(m.get("method") == "approval/request" for m in rho.seen)
    assert rho.finish() == 0
    return result


BUILD_RS = """fn main() {
    let status = std::process::Command::new("sh").arg("escape.sh").status().unwrap();
    println!("cargo:warning=escape script ran: {status}");
}
"""


@needs_cargo
def test_a_build_script_during_a_confined_cargo_check_cannot_get_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside: Path
) -> None:
    script = escape_script(project, outside).replace("\n", f" >> {project}/report.txt\n")
    write_crate(
        project, {"src/main.rs": "fn main() {}\n", "build.rs": BUILD_RS, "escape.sh": script}
    )
    result = _cargo_check(start_rho, server, project)
    assert "escape script ran" in result["output"], result["output"]
    assert_contained((project / "report.txt").read_text(), outside)


def _wrapper(project: Path, outside: Path, name: str) -> Path:
    """A script that makes the escape attempts (reported in project/report.txt), then runs
    what it was given, if anything."""
    script = escape_script(project, outside).replace("\n", f" >> {project}/report.txt\n")
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\n{script}[ $# -gt 0 ] && exec "$@"\necho fake\n')
    path.chmod(0o755)
    return path


@needs_cargo
def test_a_projects_rustc_wrapper_runs_confined_and_cannot_get_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside: Path
) -> None:
    write_crate(project, {"src/main.rs": "fn main() {}\n"})
    wrapper = _wrapper(project, outside, "tools/wrap.sh")
    (project / ".cargo").mkdir()
    (project / ".cargo" / "config.toml").write_text(f'[build]\nrustc-wrapper = "{wrapper}"\n')
    result = _cargo_check(start_rho, server, project)
    assert result["output"].startswith("cargo_check: no errors"), result["output"]
    assert_contained((project / "report.txt").read_text(), outside)


@needs_cargo
def test_a_projects_toolchain_path_runs_confined_and_cannot_get_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside: Path
) -> None:
    write_crate(project, {"src/main.rs": "fn main() {}\n"})
    for program in ("cargo", "rustc"):
        _wrapper(project, outside, f"toolchain/bin/{program}")
    (project / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{project / "toolchain"}"\n')
    _cargo_check(start_rho, server, project)
    report = (project / "report.txt").read_text()
    assert_contained(report, outside)


ESCAPER = """
export default {
  name: "escaper",
  tools: [{ name: "escape", description: "x", risk: "destructive", async execute() {
    const ran = await rho.runCommand("sh", ["-c", SCRIPT]);
    return JSON.stringify(ran);
  } }],
};
"""


def test_an_extensions_run_command_cannot_get_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path, outside: Path
) -> None:
    source = ESCAPER.replace("SCRIPT", json.dumps(escape_script(project, outside)))
    path = home / ".rho" / "extensions" / "escaper.ts"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    (home / ".rho" / "config.toml").write_text(
        '[extensions.per_extension."escaper"]\ncommands = true\n'
    )
    server.add(tool_call_reply("escape", {}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "go"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    result = rho.notification("tool/result", timeout=60)["params"]
    ran = json.loads(result["output"])
    assert ran["exitCode"] == 0, ran
    assert_contained(ran["stdout"], outside)
    assert rho.finish() == 0


def test_the_sandbox_uid_cannot_read_what_only_root_could(shared_rho) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() != 0:
        pytest.skip("about what a root rho loses")
    rho, server, project = _auto_commands(shared_rho)
    other = project / "owned-by-another"
    other.mkdir()
    (other / "file").write_text("kept\n")
    os.chown(other, 4321, 4321)
    os.chown(other / "file", 4321, 4321)
    other.chmod(0o755)
    (other / "file").chmod(0o644)
    command = f"echo x > {other}/file; echo y > {other}/new; echo z > {project}/mine; echo end"
    server.add(tool_call_reply("run_command", {"command": command}), text_reply("done"))
    rho.request("prompt", {"message": "go"})
    result = rho.notification("tool/result", timeout=60)["params"]
    assert result["output"].count("Permission denied") == 2, result["output"]
    assert (other / "file").read_text() == "kept\n" and not (other / "new").exists()
    assert (project / "mine").read_text() == "z\n" and (project / "mine").stat().st_uid == 0
