"""Commands in the OS sandbox, through the real `rho` process and real bubblewrap: writes
only inside the project, no network unless granted, credentials unreadable, writable paths
granted once, the unconfined fallback, and a repository that may not loosen any of it.

The project and home live under /var/tmp here: the sandbox gives commands a private /tmp,
which would hide (rather than refuse) anything under /tmp.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from rho_process import RHO, RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import needs_sandbox, refusals, working_backend  # type: ignore[import-not-found]

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
    path.mkdir()
    return path


def user_config(home: Path, text: str) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text(text)


def run_command(
    start_rho: Any,
    server: ScriptedServer,
    command: str,
    *,
    env: dict[str, str] | None = None,
) -> tuple[RhoProcess, dict[str, Any], dict[str, Any]]:
    """One approved run_command; returns rho, the approval request and the tool result."""
    server.add(tool_call_reply("run_command", {"command": command}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    prompt = rho.request("prompt", {"message": "go"})
    approval = rho.notification("approval/request")["params"]
    rho.answer_approval(approval)
    result = rho.notification("tool/result")["params"]
    # The turn ends before the test goes on (closing rho's input would cancel it).
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    return rho, approval, result


def run_commands(
    start_rho: Any, server: ScriptedServer, commands: list[str]
) -> tuple[RhoProcess, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """Approved run_commands, one prompt each, in one rho; returns rho and, per command, the
    approval request and the tool result."""
    for command in commands:
        server.add(tool_call_reply("run_command", {"command": command}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    answered = []
    for _ in commands:
        prompt = rho.request("prompt", {"message": "go"})
        approval = rho.notification("approval/request")["params"]
        rho.answer_approval(approval)
        answered.append((approval, rho.notification("tool/result")["params"]))
        rho.wait_for(lambda m, prompt=prompt: m.get("id") == prompt and "method" not in m)
    return rho, answered


def test_the_default_sandbox_in_one_session(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path, outside_tmp: Path
) -> None:
    """The default sandbox (a user config that only denies one more file), one rho for four
    approved commands: a write inside the project, writes outside it, a connection (no
    network) and reads of the home's credentials."""
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
    (home / ".netrc").write_text("machine example.com password NETRC-PASSWORD\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-SECRET-VALUE\n")
    (home / "notes.txt").write_text("ordinary file\n")
    user_config(home, '[sandbox]\nextra_read_deny = ["~/notes.txt"]\n')
    targets = outside_targets(project, home, outside_tmp)
    listener, received = _listener()
    try:
        rho, answered = run_commands(
            start_rho,
            server,
            [
                "mkdir -p build && echo made > build/out.txt && echo ok",
                "; ".join(f"echo pwned > {target}" for target in targets) + "; exit 1",
                connect_command(listener.getsockname()[1]),
                "cat ~/.ssh/id_ed25519 ~/.netrc ~/.aws/credentials ~/notes.txt "
                "~/.rho/config.toml; ls -A ~/.ssh; echo end",
            ],
        )
    finally:
        listener.close()
    (approval, result), outside, network, credentials = answered
    check_writes_inside(rho, project, approval, result)
    check_writes_outside(outside[1], targets)
    check_no_network(network[0], network[1], received)
    check_credentials_unreadable(credentials[1], home)


def check_writes_inside(
    rho: RhoProcess, project: Path, approval: dict[str, Any], result: dict[str, Any]
) -> None:
    """A command writes inside the project, and clients see it confined."""
    assert result["output"] == "exit_code: 0\nok\n"
    assert (project / "build" / "out.txt").read_text() == "made\n"
    assert approval["sandbox"]["mode"] == "confined"
    assert approval["sandbox"]["backend"] == working_backend()
    assert approval["sandbox"]["network"] is False
    state = rho.call("getState")["result"]
    assert state["sandbox"]["mode"] == "confined" and "problem" not in state["sandbox"]
    tools = rho.call("listTools")["result"]
    by_name = {tool["name"]: tool for tool in tools["tools"]}
    assert by_name["run_command"]["confined"] is True
    assert by_name["read_file"]["runsProcesses"] is False
    assert tools["sandbox"]["backend"] == working_backend()


def outside_targets(project: Path, home: Path, outside_tmp: Path) -> list[Path]:
    """Places outside the project (or in its .git) that a command tries to write."""
    return [
        home / "planted",
        Path("/etc/rho-sandbox-planted"),
        project / ".git" / "hooks" / "pre-commit",
        project / ".git" / "config",
        outside_tmp / "beside-the-project",
        Path("/usr/local/bin/rho-planted"),
    ]


def check_writes_outside(result: dict[str, Any], targets: list[Path]) -> None:
    """Writes outside the project fail and leave nothing."""
    assert result["is_error"] is True
    said, note = result["output"].split("\n[sandbox: ")
    assert refusals(said) == len(targets), said
    assert note.startswith(f"the command ran confined ({working_backend()})")
    for target in targets:
        assert not target.exists(), target


def _listener() -> tuple[socket.socket, list[bytes]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []

    def accept() -> None:
        try:
            while True:
                connection, _ = server.accept()
                with connection:
                    received.append(connection.recv(100))
        except OSError:
            return

    threading.Thread(target=accept, daemon=True).start()
    return server, received


def connect_command(port: int) -> str:
    """A command that connects to `port` on 127.0.0.1, sends `hello` and prints `sent`."""
    connect = (
        f"import socket; s = socket.create_connection(('127.0.0.1', {port}), 5); "
        "s.sendall(b'hello'); s.close(); print('sent')"
    )
    # The base interpreter: a virtualenv under /tmp is hidden by the private /tmp.
    return f'{os.path.realpath(sys.executable)} -c "{connect}"'


def check_no_network(
    approval: dict[str, Any], result: dict[str, Any], received: list[bytes]
) -> None:
    """Without the user's grant a command has no network."""
    assert approval["sandbox"]["network"] is False
    assert result["is_error"] is True and "Connection refused" in result["output"]
    assert "[sandbox:" in result["output"] and received == []


def test_network_is_on_when_the_user_grants_it(
    start_rho, server: ScriptedServer, home: Path
) -> None:  # type: ignore[no-untyped-def]
    user_config(home, "[sandbox]\nnetwork = true\n")
    listener, received = _listener()
    try:
        command = connect_command(listener.getsockname()[1])
        _, approval, result = run_command(start_rho, server, command)
    finally:
        listener.close()
    assert approval["sandbox"]["network"] is True
    assert result["output"] == "exit_code: 0\nsent\n"
    deadline = time.monotonic() + 60  # the listener thread may still be reading
    while not received and time.monotonic() < deadline:
        time.sleep(0.02)
    assert received == [b"hello"]


def check_credentials_unreadable(result: dict[str, Any], home: Path) -> None:
    """Credentials in the home directory (and a file the user denies) are unreadable."""
    output = result["output"]
    for secret in ("PRIVATE-KEY", "NETRC-PASSWORD", "AWS-SECRET", "ordinary file", "sandbox]"):
        assert secret not in output
    assert output.startswith("exit_code: 0\nend\n") and "No such file or directory" in output
    assert (home / ".ssh" / "id_ed25519").read_text() == "PRIVATE-KEY-MATERIAL\n"


def test_a_writable_path_is_asked_for_once_and_recorded(
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path
) -> None:  # type: ignore[no-untyped-def]
    cache = outside_tmp / "cache"
    cache.mkdir()
    user_config(
        home,
        f'[sandbox]\nwritable = ["{cache}"]\n\n[approval.per_tool]\nrun_command = "auto"\n',
    )
    rho, approval, result = run_command(start_rho, server, f"echo 1 > {cache}/first")
    assert approval["sandbox"]["pendingWritable"] == [str(cache)]
    assert result["output"] == "exit_code: 0\n" and (cache / "first").read_text() == "1\n"
    rho.finish()
    grants = (home / ".rho" / "sandbox_grants.toml").read_text()
    assert f'path = "{cache}"' in grants

    server.add(tool_call_reply("run_command", {"command": f"echo 2 > {cache}/second"}))
    server.add(text_reply("done"))
    again = start_scripted(start_rho, server, "--ephemeral")
    again.request("prompt", {"message": "go"})
    assert again.notification("tool/result")["params"]["output"] == "exit_code: 0\n"
    assert "approval/request" not in again.methods_seen()
    assert (cache / "second").read_text() == "2\n"
    state = again.call("getState")["result"]["sandbox"]
    assert state["writable"] == [str(cache)] and state["pendingWritable"] == []


def test_a_writable_path_the_user_denies_stays_closed(
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path
) -> None:  # type: ignore[no-untyped-def]
    cache = outside_tmp / "cache"
    cache.mkdir()
    user_config(home, f'[sandbox]\nwritable = ["{cache}"]\n')
    server.add(tool_call_reply("run_command", {"command": f"touch {cache}/x"}), text_reply("ok"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.request("prompt", {"message": "go"})
    rho.answer_approval(rho.notification("approval/request")["params"], approved=False)
    rho.notification("tool/denied")
    rho.notification("agent/end")
    assert not (cache / "x").exists()
    assert not (home / ".rho" / "sandbox_grants.toml").exists()


def test_an_untrusted_project_cannot_loosen_the_sandbox(
    start_rho, server: ScriptedServer, project: Path, outside_tmp: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(
        f'[sandbox]\nmode = "off"\nnetwork = true\nwritable = ["{outside_tmp}"]\nbackend = "none"\n'
    )
    rho, approval, result = run_command(start_rho, server, f"touch {outside_tmp}/escaped")
    assert refusals(result["output"].split("\n[sandbox: ")[0]) == 1, result["output"]
    assert not (outside_tmp / "escaped").exists()
    assert approval["sandbox"]["mode"] == "confined" and approval["sandbox"]["network"] is False
    rho.finish()
    stderr = rho.stderr_text()
    assert 'sandbox.mode = "off"' in stderr and "rho trust" in stderr


def test_a_trusted_project_may_turn_the_sandbox_off(
    start_rho, server: ScriptedServer, project: Path, home: Path, outside_tmp: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([RHO, "trust", "--root", str(project)], env=env, check=True, capture_output=True)
    _, approval, result = run_command(start_rho, server, f"touch {outside_tmp}/allowed")
    assert approval["sandbox"]["mode"] == "off"
    assert result["output"] == "exit_code: 0\n" and (outside_tmp / "allowed").exists()


BUILD_PLUGIN = """
from rho_kernel import ToolContext, hookimpl, tool


@tool(risk="destructive", confined_risk="read", runs_processes=True)
async def build(ctx: ToolContext) -> str:
    '''Build the project (runs its code).'''
    result = await ctx.run_process(["true"])
    return f"built, confined by {result.confined_by}"


@hookimpl
def rho_register_tools():
    return [build]
"""


@pytest.mark.parametrize("mode", ["confined", "off"])
def test_a_tool_with_a_confined_risk_asks_only_when_unconfined(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, outside_tmp: Path, mode: str
) -> None:
    from rho_process import install_plugin, plugin_env  # type: ignore[import-not-found]

    site = outside_tmp / "site"
    install_plugin(site, "build_tools", "build-tools", BUILD_PLUGIN)
    user_config(home, f'[sandbox]\nmode = "{mode}"\n')
    server.add(tool_call_reply("build", {}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=plugin_env(site, "build-tools"))
    assert "build" in {t["name"] for t in rho.call("listTools")["result"]["tools"]}, (
        rho.stderr_text()
    )
    prompt = rho.request("prompt", {"message": "go"})
    if mode == "off":
        request = rho.notification("approval/request", timeout=5)["params"]
        assert request["risk"] == "destructive"
        rho.answer_approval(request)
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    confined = "confined by None" not in result["output"]
    assert confined == (mode == "confined")
    assert any(m.get("method") == "approval/request" for m in rho.seen) == (mode == "off")
    assert rho.finish() == 0, rho.stderr_text()
