"""Where no OS sandbox works (no bubblewrap on PATH, a kernel without Landlock), through the
real `rho`: commands fail closed by default — each asks, whatever the rules and the
approval mode, and runs unconfined only once approved —, `[sandbox] require = false` (or
`--no-sandbox`) opts out, `require = true` refuses them, and rho says so once at start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from machines import path_without_bubblewrap, without_landlock  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


@pytest.fixture
def home(outside_tmp: Path) -> Path:
    path = outside_tmp / "home"
    (path / ".rho").mkdir(parents=True)
    return path


def _start(start_rho: Any, server: ScriptedServer, outside_tmp: Path, *flags: str) -> RhoProcess:
    """rho where nothing can confine a command."""
    path = path_without_bubblewrap(outside_tmp / "bin")
    return start_scripted(
        start_rho, server, "--ephemeral", *flags, env={"PATH": path}, prefix=without_landlock([])
    )


def _touch(server: ScriptedServer, target: Path) -> None:
    server.add(tool_call_reply("run_command", {"command": f"touch {target}"}), text_reply("done"))


@pytest.mark.parametrize(
    "flags",
    [("--approval-mode", "auto"), ("--allow", "run_command(touch:*)"), ()],
    ids=["auto-mode", "allow-rule", "ask"],
)
def test_by_default_every_command_asks_and_runs_unconfined_only_once_approved(
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path, flags: tuple[str, ...]
) -> None:  # type: ignore[no-untyped-def]
    target = outside_tmp / "unconfined"
    _touch(server, target)
    _touch(server, target.with_name("second"))
    rho = _start(start_rho, server, outside_tmp, *flags)
    state = rho.call("getState")["result"]["sandbox"]
    assert (state["mode"], state.get("alwaysAsks")) == ("unconfined", True)
    assert "bubblewrap (bwrap) is not installed" in state["problem"]
    assert "this kernel has no Landlock" in state["problem"] and "bubblewrap" in state["fix"]
    first = rho.request("prompt", {"message": "go"})
    approval = rho.notification("approval/request")["params"]
    assert approval["sandbox"]["mode"] == "unconfined" and approval["sandbox"]["alwaysAsks"]
    assert not approval.get("suggestedRules")  # no rule could spare the next question
    rho.answer_approval(approval)
    result = rho.notification("tool/result")["params"]
    assert result["output"] == "exit_code: 0\n" and target.exists()
    rho.wait_for(lambda m: m.get("id") == first and "method" not in m)
    rho.request("prompt", {"message": "again"})
    rho.answer_approval(rho.notification("approval/request")["params"], approved=False)
    assert rho.notification("tool/result")["params"]["is_error"] is True
    assert not target.with_name("second").exists()
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert stderr.count("commands would run unconfined") == 1, stderr
    assert "every command asks for your approval" in stderr and "--no-sandbox" in stderr


@pytest.mark.parametrize("opt_out", ["config", "flag"])
def test_an_opted_out_user_runs_commands_as_rules_say(
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path, opt_out: str
) -> None:  # type: ignore[no-untyped-def]
    flags = ["--approval-mode", "auto"]
    if opt_out == "config":
        (home / ".rho" / "config.toml").write_text("[sandbox]\nrequire = false\n")
    else:
        flags.append("--no-sandbox")
    target = outside_tmp / "unconfined"
    _touch(server, target)
    rho = _start(start_rho, server, outside_tmp, *flags)
    state = rho.call("getState")["result"]["sandbox"]
    assert state["mode"] == ("unconfined" if opt_out == "config" else "off")
    assert not state["alwaysAsks"]
    rho.request("prompt", {"message": "go"})
    assert rho.notification("tool/result")["params"]["output"] == "exit_code: 0\n"
    assert target.exists() and "approval/request" not in rho.methods_seen()
    assert rho.finish() == 0
    said = "require = false" if opt_out == "config" else 'mode = "off"'
    stderr = rho.stderr_text()
    assert said in stderr and stderr.count("commands run unconfined") == 1, stderr


def test_require_true_refuses_every_command(
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path
) -> None:  # type: ignore[no-untyped-def]
    (home / ".rho" / "config.toml").write_text("[sandbox]\nrequire = true\n")
    target = outside_tmp / "refused"
    _touch(server, target)
    rho = _start(start_rho, server, outside_tmp, "--approval-mode", "auto")
    assert rho.call("getState")["result"]["sandbox"]["mode"] == "refused"
    rho.request("prompt", {"message": "go"})
    result = rho.notification("tool/result")["params"]
    assert result["is_error"] is True
    assert result["output"].startswith("run_command: commands are refused: [sandbox] require")
    assert not target.exists()
    assert rho.finish() == 0
    assert rho.stderr_text().count("commands will not run") == 1
