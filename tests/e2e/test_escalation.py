"""One-off escalation through the real `rho` process: a command that asks to leave the OS
sandbox always asks (whatever the mode or rules), shows why, runs escalated only that once,
and is refused outright where `[sandbox] allow_escalation = false`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

NAMESPACES = "readlink /proc/self/ns/net /proc/self/ns/mnt"


@pytest.fixture
def project(outside_tmp: Path) -> Path:
    root = outside_tmp / "project"
    (root / ".git").mkdir(parents=True)
    return root


def _command(line: str, **extra: str) -> object:
    return tool_call_reply("run_command", {"command": line, **extra})


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def _finish(rho: RhoProcess, prompt_id: Any) -> None:
    rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def test_an_escalation_asks_even_in_auto_mode_and_with_an_allow_rule(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer
) -> None:
    why = "fetches the crate index"
    server.add(_command("echo hi", sandbox="network", justification=why), text_reply("done"))
    rho = start_scripted(
        start_rho, server, "--ephemeral", "--approval-mode", "auto", "--allow", "run_command"
    )
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    assert request["escalation"] == {"sandbox": "network", "justification": why}
    assert request["suggestedRules"] == []
    rho.answer_approval(request, approved=False)
    _finish(rho, prompt_id)
    assert "tool/approved" not in rho.methods_seen()
    assert rho.finish() == 0


def test_an_escalation_without_a_justification_or_where_it_is_off_is_refused(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path
) -> None:
    server.add(_command("echo hi", sandbox="unconfined"))
    server.add(_command("echo hi", sandbox="everything", justification="x"))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--approval-mode", "auto")
    _finish(rho, rho.request("prompt", {"message": "go"}))
    missing, wrong = _results(rho)
    assert missing["is_error"] and "needs a justification" in missing["output"]
    assert wrong["is_error"] and 'sandbox must be "network" or "unconfined"' in wrong["output"]
    assert rho.finish() == 0

    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[sandbox]\nallow_escalation = false\n")
    server.add(_command("echo hi", sandbox="network", justification="needs it"))
    server.add(text_reply("done"))
    off = start_scripted(start_rho, server, "--ephemeral")
    _finish(off, off.request("prompt", {"message": "go"}))
    (refused,) = _results(off)
    assert refused["is_error"] and "[sandbox] allow_escalation = false" in refused["output"]
    assert "approval/request" not in off.methods_seen()
    assert off.finish() == 0


def test_an_untrusted_repository_cannot_turn_escalation_back_on(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, project: Path
) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[sandbox]\nallow_escalation = false\n")
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("[sandbox]\nallow_escalation = true\n")
    server.add(_command("echo hi", sandbox="network", justification="needs it"))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    _finish(rho, rho.request("prompt", {"message": "go"}))
    assert "[sandbox] allow_escalation = false" in _results(rho)[0]["output"]
    rho.kill()
    assert "sandbox.allow_escalation = true" in rho.stderr_text()


@pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)
def test_an_approved_escalation_applies_to_that_call_only(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer
) -> None:
    server.add(
        _command(NAMESPACES, sandbox="network", justification="talks to the registry"),
        _command(NAMESPACES, sandbox="unconfined", justification="needs the host"),
        _command(NAMESPACES),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    for _ in range(3):
        rho.answer_approval(rho.notification("approval/request")["params"])
    _finish(rho, prompt_id)
    host = (os.readlink("/proc/self/ns/net"), os.readlink("/proc/self/ns/mnt"))
    seen = [tuple(r["output"].split("\n")[1:3]) for r in _results(rho)]
    network, unconfined, confined = seen
    assert network[0] == host[0] and network[1] != host[1]  # the host's network, still confined
    assert unconfined == host  # no sandbox at all
    assert confined[0] != host[0] and confined[1] != host[1]  # the next call: confined again
    assert rho.finish() == 0
