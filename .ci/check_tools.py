"""Start the `rho` installed next to this Python and check the tools it offers.

Run with the Python of the environment under test:

    ENV/bin/python .ci/check_tools.py [PLUGIN ...]

The environment must hold exactly rho-kernel, rho-rpc and the named tool plugins (its `rho`
entry points say so), rho must start, answer `listTools` with exactly the tools those plugins
register (each attributed to its plugin; none at all without plugins), and exit cleanly on
end of input without a traceback. Exits non-zero with a message otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

CORE = {"rho-kernel", "rho-rpc"}


def expected_tools(plugins: list[str], root: Path) -> dict[str, str]:
    """Tool name → plugin, from the named plugins alone (registered in-process)."""
    from rho_kernel.config.model import RhoConfig
    from rho_kernel.plugins import PluginHost

    host = PluginHost(autoload=False)
    points = {ep.name: ep for ep in entry_points(group="rho")}
    for name in plugins:
        host.register(points[name].load(), name)
    items = host.collect("rho_register_tools", config=RhoConfig(), root=root)
    return {item.name: name for name, item in items}


def list_tools(rho: Path, project: Path, home: Path) -> tuple[list[dict[str, Any]], str]:
    """Start rho, read `ready`, ask `listTools`, close stdin: (tools, stderr)."""
    request = {"jsonrpc": "2.0", "method": "listTools", "id": 1}
    argv = [str(rho), "--ephemeral", "-m", "ci-model"]
    argv += ["--endpoint", "http://127.0.0.1:9/v1/chat/completions"]
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    done = subprocess.run(
        argv,
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    if done.returncode != 0 or "Traceback" in done.stderr:
        fail(f"rho exited with {done.returncode}; stderr:\n{done.stderr}")
    if not messages or messages[0].get("method") != "ready":
        fail(f"rho did not start with `ready`: {done.stdout!r}")
    (response,) = [m for m in messages if m.get("id") == 1]
    return response["result"]["tools"], done.stderr


def fail(message: str) -> None:
    """Stop with `message` on stderr."""
    print(f"check_tools: {message}", file=sys.stderr)
    raise SystemExit(1)


def main(plugins: list[str]) -> None:
    """Check the environment, then what its rho offers."""
    installed = {ep.name for ep in entry_points(group="rho")}
    if installed != CORE | set(plugins):
        fail(f"the environment holds rho plugins {sorted(installed)}, expected {plugins}")
    rho = Path(sys.executable).with_name("rho")
    with tempfile.TemporaryDirectory() as tmp:
        project, home = Path(tmp, "project"), Path(tmp, "home")
        (project / ".git").mkdir(parents=True)
        home.mkdir()
        expected = expected_tools(plugins, project)
        tools, stderr = list_tools(rho, project, home)
    offered = {tool["name"]: tool.get("plugin") for tool in tools}
    if offered != expected:
        fail(f"listTools offered {offered}, expected {expected}")
    if plugins and not expected:
        fail(f"{plugins} registered no tools")
    said_none = "no tool packs are installed" in stderr
    if said_none != (not expected):
        fail(f"stderr {'says' if said_none else 'does not say'} that no tool packs are installed")
    print(f"check_tools: {plugins or 'no plugins'}: {sorted(offered) or 'no tools'}")
    if stderr.strip():
        print("  rho said: " + stderr.strip().replace("\n", "\n  rho said: "))


if __name__ == "__main__":
    main(sys.argv[1:])
