"""rho names one version wherever it names itself, through the real processes."""

from __future__ import annotations

import json
import subprocess
from importlib.metadata import version
from pathlib import Path

from rho_process import RHO, rho_env  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply


def _rho_version(home: Path, project: Path) -> str:
    done = subprocess.run(
        [RHO, "--version"], capture_output=True, cwd=project, env=rho_env(home), timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    first = done.stdout.decode().splitlines()[0]
    assert first.startswith("rho ")
    return first.removeprefix("rho ")


def _acp_agent_version(home: Path, project: Path) -> str:
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    done = subprocess.run(
        [RHO, "acp", "-m", "m"],
        input=(json.dumps(request) + "\n").encode(),
        capture_output=True,
        cwd=project,
        env=rho_env(home),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    [answer] = [json.loads(line) for line in done.stdout.decode().splitlines()]
    info = answer["result"]["agentInfo"]
    assert info["name"] == "rho"
    return str(info["version"])


def test_version_ready_acp_and_the_user_agent_say_rhos_one_version(
    start_rho,
    home: Path,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    expected = version("rho-rpc")  # the distribution that installs the `rho` command
    with ScriptedServer([text_reply("hi")]) as server:
        rho = start_rho("--ephemeral", "--endpoint", server.chat_url, "-m", "scripted-model")
        ready = rho.read()
        assert ready["method"] == "ready"
        rho.call("prompt", {"message": "hello"})
        discovered = rho.call("rpc.discover")["result"]
        assert rho.finish() == 0
        [post] = [r for r in server.requests if r.method == "POST"]
    assert ready["params"]["version"] == expected
    assert discovered["info"]["version"] == expected
    assert post.headers["user-agent"] == f"rho/{expected}"
    assert _rho_version(home, project) == expected
    assert _acp_agent_version(home, project) == expected


def test_the_first_run_probe_names_rhos_version_too(
    start_rho,
    project: Path,  # type: ignore[no-untyped-def]
) -> None:
    with ScriptedServer(models=["loaded-model"]) as server:
        rho = start_rho("--ephemeral", "--endpoint", server.chat_url)
        assert rho.read()["params"]["model"] == "loaded-model"
        assert rho.finish() == 0
        [probe] = [r for r in server.requests if r.method == "GET"]
    assert probe.headers["user-agent"] == f"rho/{version('rho-rpc')}"
