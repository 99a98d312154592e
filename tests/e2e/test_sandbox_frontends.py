"""Every front end is honest about the sandbox, through the real processes: `rho exec` says
once at start how commands run, and without a terminal denies a command nothing could
confine (saying why); `rho acp`'s permission requests carry the sandbox state, in the
title a person reads and in `_meta.rho.sandbox`."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp_client import RecordingClient, run_acp  # type: ignore[import-not-found]
from machines import path_without_bubblewrap, without_landlock  # type: ignore[import-not-found]
from rho_process import RHO, WAIT, rho_env  # type: ignore[import-not-found]
from sandboxes import needs_sandbox, working_backend  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _exec(
    project: Path, home: Path, server: ScriptedServer, *args: str, unconfinable: Path | None
) -> subprocess.CompletedProcess[str]:
    """`rho exec` without a terminal; where `unconfinable` (a scratch folder) is given, on
    a machine where nothing can confine a command."""
    prefix: list[str] = []
    env = rho_env(home)
    if unconfinable is not None:
        prefix = without_landlock([])
        env["PATH"] = path_without_bubblewrap(unconfinable / "bin")
    scripted = ("--endpoint", server.chat_url, "-m", "scripted-model", "--ephemeral")
    return subprocess.run(
        [*prefix, RHO, "exec", *scripted, *args],
        cwd=project,
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


@needs_sandbox
def test_rho_exec_says_once_how_commands_run(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(tool_call_reply("run_command", {"command": "echo hi"}), text_reply("ran"))
    done = _exec(project, home, server, "--approval-mode", "auto", "go", unconfinable=None)
    assert done.returncode == 0, done.stderr
    said = f"rho: commands run confined by {working_backend()} (without network)"
    assert done.stderr.count(said) == 1, done.stderr


def test_rho_exec_without_a_terminal_denies_what_nothing_could_confine(
    server: ScriptedServer, home: Path, project: Path, outside_tmp: Path
) -> None:
    target = outside_tmp / "ran"
    server.add(tool_call_reply("run_command", {"command": f"touch {target}"}), text_reply("no"))
    done = _exec(project, home, server, "--approval-mode", "auto", "go", unconfinable=outside_tmp)
    assert not target.exists()
    assert done.stderr.count("commands would run unconfined") == 1, done.stderr
    assert "denied run_command: no OS sandbox works here" in done.stderr
    tool_result = server.requests[-1].json["messages"][-1]["content"]
    assert "no OS sandbox works on this machine" in tool_result


def _acp_permission(
    server: ScriptedServer, home: Path, project: Path, outside_tmp: Path | None
) -> Any:
    server.add(tool_call_reply("run_command", {"command": "true"}), text_reply("done"))
    client = RecordingClient(choice="reject-once")
    env = rho_env(home)
    command = [RHO, "acp", "--endpoint", server.chat_url, "-m", "scripted-model"]
    if outside_tmp is not None:
        command = [*without_landlock([]), *command]
        env["PATH"] = path_without_bubblewrap(outside_tmp / "bin")

    async def run() -> Any:
        async with spawn_agent_process(client, *command, env=env, cwd=project) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])

    run_acp(run())
    [(tool_call, _options)] = client.permissions
    return tool_call


def test_an_acp_permission_request_says_commands_would_run_unconfined(
    server: ScriptedServer, home: Path, project: Path, outside_tmp: Path
) -> None:
    tool_call = _acp_permission(server, home, project, outside_tmp)
    assert tool_call.title.endswith(
        "[sandbox: unconfined: no OS sandbox works here (every command asks)]"
    )
    sandbox = tool_call.field_meta["rho"]["sandbox"]
    assert sandbox["mode"] == "unconfined" and sandbox["alwaysAsks"] is True
    assert "Landlock" in sandbox["problem"]


@needs_sandbox
def test_an_acp_permission_request_says_which_sandbox_confines_the_command(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    tool_call = _acp_permission(server, home, project, None)
    assert f"[sandbox: confined ({working_backend()}, no network)]" in tool_call.title
    assert tool_call.field_meta["rho"]["sandbox"]["backend"] == working_backend()
