"""Approval rules through the real `rho` process: `--allow`/`--deny` and `[approval]
allow`/`deny` run or refuse the calls they cover, announce it, and cover nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")


def _command(line: str) -> object:
    return tool_call_reply("run_command", {"command": line})


def _write(path: str) -> object:
    return tool_call_reply("write_file", {"path": path, "content": path})


def _events(rho: RhoProcess, method: str) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == method]


def _prompt(rho: RhoProcess) -> Any:
    return rho.request("prompt", {"message": "go"})


def _answer(rho: RhoProcess, prompt_id: Any) -> dict[str, Any]:
    return rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def test_an_allowed_command_runs_without_asking_and_nothing_else_does(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / "sub").mkdir()
    server.add(_command("echo rule-ran"), _command("echo rule-ran; touch nope"))
    server.add(
        tool_call_reply("run_command", {"command": "echo rule-ranx", "cwd": "sub"}),
        text_reply("done"),
    )
    rho = start_scripted(
        start_rho, server, "--ephemeral", "--allow", "run_command(echo rule-ran:*)"
    )
    prompt_id = _prompt(rho)
    for _ in range(2):  # the list and the longer word both ask
        request = rho.notification("approval/request")["params"]
        rho.answer_approval(request, approved=False)
    assert _answer(rho, prompt_id)["result"]["reply"] == "done"
    approved = _events(rho, "tool/approved")
    assert [(a["name"], a["approvedBy"], a["source"]) for a in approved] == [
        ("run_command", "run_command(echo rule-ran:*)", "--allow")
    ]
    results = _events(rho, "tool/result")
    assert "rule-ran" in results[0]["output"] and not results[0]["is_error"]
    requests = _events(rho, "approval/request")
    asked = [r["arguments"] for r in requests]
    assert ["touch nope" in asked[0], "rule-ranx" in asked[1]] == [True, True]
    assert [r["workingDirectory"] for r in requests] == [str(project), str(project / "sub")]
    assert rho.finish() == 0


def test_deny_beats_allow_and_is_said_to_the_model(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    server.add(_write("notes/a.txt"), _write("notes/secret.txt"), _write("b.txt"))
    server.add(text_reply("done"))
    rho = start_scripted(
        start_rho,
        server,
        "--ephemeral",
        "--allow",
        "write_file(notes/**)",
        "--deny",
        "write_file(**/secret.txt)",
    )
    prompt_id = _prompt(rho)
    request = rho.notification("approval/request")["params"]  # b.txt: no rule covers it
    assert '"b.txt"' in request["arguments"]
    rho.answer_approval(request, approved=False)
    _answer(rho, prompt_id)
    assert (project / "notes" / "a.txt").read_text() == "notes/a.txt"
    assert not (project / "notes" / "secret.txt").exists() and not (project / "b.txt").exists()
    results = _events(rho, "tool/result")
    assert results[1]["is_error"]
    assert results[1]["output"] == (
        "Tool call denied by the rule 'write_file(**/secret.txt)' (--deny)."
    )
    assert len(_events(rho, "approval/request")) == 1
    assert [d["name"] for d in _events(rho, "tool/denied")] == ["write_file", "write_file"]
    assert rho.finish() == 0


def test_a_deny_rule_covers_the_command_inside_a_list_or_a_wrapper(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    lines = ["true && touch a", "env X=1 touch b", "bash -c 'touch c'", "/usr/bin/touch d"]
    server.add(*[_command(line) for line in lines], text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", "--deny", "run_command(touch:*)")
    _answer(rho, _prompt(rho))
    outputs = [r["output"] for r in _events(rho, "tool/result")]
    assert outputs == ["Tool call denied by the rule 'run_command(touch:*)' (--deny)."] * 4
    assert "approval/request" not in rho.methods_seen()
    assert not any((project / name).exists() for name in "abcd")
    assert rho.finish() == 0


def test_rules_in_config_and_an_untrusted_repositorys_allow(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    user_config(home, '[approval]\nallow = ["write_file(a.txt)"]\n')
    (project / ".rho").mkdir()
    repository = project / ".rho" / "config.toml"
    repository.write_text('[approval]\nallow = ["write_file(b.txt)"]\ndeny = ["write_file(a*)"]\n')
    server.add(_write("a.txt"), _write("b.txt"), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = _prompt(rho)
    request = rho.notification("approval/request")["params"]  # the repository's allow is ignored
    assert '"b.txt"' in request["arguments"]
    rho.answer_approval(request, approved=False)
    _answer(rho, prompt_id)
    denied = _events(rho, "tool/result")[0]["output"]
    assert denied == "Tool call denied by the rule 'write_file(a*)' ([approval] deny)."
    assert not (project / "a.txt").exists() and not (project / "b.txt").exists()
    rho.kill()
    warning = rho.stderr_text()
    assert "ignored settings that need trust" in warning and "approval.allow" in warning


def test_a_rule_that_cannot_be_read_stops_the_start(start_rho) -> None:  # type: ignore[no-untyped-def]
    for rule, problem in [
        ("run_command(cargo test | tee log:*)", "is not one plain command"),
        ("write_file(../outside/**)", "leaves the project root"),
        ("read_file(src/**)", "read_file calls are not matched on a command or a path"),
        ("run_command(cargo", "does not end with ')'"),
    ]:
        rho = start_rho("--ephemeral", "--allow", rule)
        assert rho.finish() == 2
        assert rho.raw == []
        err = rho.stderr_text()
        assert err.startswith("rho: error: --allow: ") and problem in err, err
        assert "Traceback" not in err
