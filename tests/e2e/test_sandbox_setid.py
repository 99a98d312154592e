"""No setuid or setgid file from a confined command, through the real `rho` process and real
bubblewrap: an approved `run_command`, and a repository's build script during a confined
`cargo_check` (a read: nothing is asked). These run as root in CI, where such a file would
be owned by host root and runnable as root by any local user."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rho_process import start_scripted  # type: ignore[import-not-found]
from rust_crates import TOOLCHAIN_ENV, needs_cargo, write_crate  # type: ignore[import-not-found]
from setid_attacks import assert_no_setid, setid_script  # type: ignore[import-not-found]

from rho_kernel.confinement.seccomp import filter_for_machine
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

pytestmark = [
    pytest.mark.skipif(
        shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
    ),
    pytest.mark.skipif(filter_for_machine() is None, reason="no filter for this machine"),
]


@pytest.fixture
def project(outside_tmp: Path) -> Path:
    root = outside_tmp / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def outside(outside_tmp: Path) -> Path:
    path = outside_tmp / "outside"
    path.mkdir()
    return path


def test_an_approved_command_cannot_make_a_set_id_file(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside: Path
) -> None:
    script = setid_script(project, outside)
    server.add(tool_call_reply("run_command", {"command": script}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "go"})
    rho.answer_approval(rho.notification("approval/request")["params"])
    result = rho.notification("tool/result", timeout=120)["params"]
    assert result["output"].startswith("exit_code: 0\n"), result["output"]
    assert_no_setid(result["output"], project)
    assert rho.finish() == 0


BUILD_RS = """fn main() {
    let status = std::process::Command::new("sh").arg("setid.sh").status().unwrap();
    println!("cargo:warning=setid script ran: {status}");
}
"""


@needs_cargo
def test_a_build_script_during_cargo_check_cannot_make_a_set_id_file(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside: Path
) -> None:
    script = setid_script(project, outside).replace("\n", f" >> {project}/report.txt\n")
    write_crate(project, {"src/main.rs": "fn main() {}\n", "build.rs": BUILD_RS})
    (project / "setid.sh").write_text(script)
    server.add(tool_call_reply("cargo_check", {}), text_reply("done"))
    env = {**TOOLCHAIN_ENV, "CARGO_TARGET_DIR": str(project / "target")}
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    rho.request("prompt", {"message": "check"})
    result: dict[str, Any] = rho.notification("tool/result", timeout=240)["params"]
    assert not any(m.get("method") == "approval/request" for m in rho.seen)
    assert rho.finish() == 0
    assert "setid script ran" in result["output"], result["output"]
    assert result["output"].startswith("cargo_check: 0 errors"), result["output"]
    assert_no_setid((project / "report.txt").read_text(), project)
