"""rho where no namespace can be made (a container's seccomp profile refuses `unshare`) and
bubblewrap is missing, through the real `rho`: Landlock and seccomp alone confine commands,
`getState` says what they cannot do here, and a command can change the project's files but
not create anything beside its `.git` — nor reach the network, even on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
from machines import path_without_bubblewrap, without_namespaces  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.confinement.landlock import landlock_abi
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

PYTHON = os.path.realpath(sys.executable)
pytestmark = pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock")


def test_landlock_alone_confines_and_says_what_it_cannot_do(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, outside_tmp: Path
) -> None:
    (project / ".git").mkdir(exist_ok=True)
    (project / "src").mkdir()
    (project / "notes.txt").write_text("one\n")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    script = (
        "echo two >> notes.txt && echo rewrote; echo x > src/made && echo made; "
        "echo x > new-at-top || echo refused-top; echo x > .git/config || echo refused-git; "
        f"echo x > {outside_tmp}/out || echo refused-outside; "
        f"{PYTHON} -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5)' "
        "2>/dev/null || echo refused-network"
    )
    server.add(tool_call_reply("run_command", {"command": script}), text_reply("done"))
    env = {"PATH": path_without_bubblewrap(outside_tmp / "bin")}
    rho = start_scripted(
        start_rho, server, "--approval-mode", "auto", env=env, prefix=without_namespaces([])
    )
    try:
        sandbox = rho.call("getState")["result"]["sandbox"]
        assert (sandbox["mode"], sandbox["backend"]) == ("confined", "landlock")
        assert any("no namespace can be made here" in line for line in sandbox["limits"])
        assert any("127.0.0.1 cannot be reached" in line for line in sandbox["limits"])
        rho.request("prompt", {"message": "go"})
        output = rho.notification("tool/result")["params"]["output"]
    finally:
        listener.close()
    for said in ("rewrote", "made", "refused-top", "refused-git", "refused-outside"):
        assert said in output, output
    assert "refused-network" in output, output
    assert (project / "notes.txt").read_text() == "one\ntwo\n"
    assert (project / "src" / "made").exists() and not (project / "new-at-top").exists()
    assert not (outside_tmp / "out").exists()
    assert rho.finish() == 0
    assert "commands run confined by landlock" in rho.stderr_text()
