"""Configuring the SDK-written test server (tests/rho_mcp/mcp_test_server.py) for a rho."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parents[1] / "rho_mcp" / "mcp_test_server.py"
#: The standard-library-only server (see its docstring).
RAW_SERVER = Path(__file__).resolve().parents[1] / "rho_mcp" / "raw_mcp_server.py"

ECHO = {
    "name": "echo",
    "behavior": "echo",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}


def write_spec(folder: Path, name: str, **spec: Any) -> Path:
    """The spec file of a test server called `name` (see the server's docstring)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"name": name, **spec}))
    return path


def toml_server(name: str, spec: Path, **keys: Any) -> str:
    """A `[mcp_servers.NAME]` table starting the test server with `spec`, plus `keys`."""
    lines = [
        f"[mcp_servers.{name}]",
        f"command = {json.dumps(sys.executable)}",
        f"args = {json.dumps([str(SERVER), str(spec)])}",
    ]
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n"


def raw_server(spec: Path, **keys: Any) -> dict[str, Any]:
    """The `command` and `args` of the standard-library-only test server with `spec`, run
    by the base interpreter (not the virtual environment's, which a sandbox may hide)."""
    return {"command": os.path.realpath(sys.executable), "args": [str(RAW_SERVER), str(spec)]}


def user_servers(home: Path, *tables: str) -> None:
    """Write the user's config with these server tables."""
    config = home / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(tables))


def mcp_servers(rho: Any) -> dict[str, dict[str, Any]]:
    """`listMcpServers` by name."""
    return {s["name"]: s for s in rho.call("listMcpServers")["result"]["servers"]}


#: The published reference server the tests also run (installed from the npm registry).
EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"


#: HOME as the suite started, before each test points it at a folder of its own.
_HOME = Path.home()


def npm_cache() -> Path:
    """Where the tests' npm packages are installed (`.ci/run` installs them there first)."""
    configured = os.environ.get("RHO_TEST_NPM_PREFIX")
    if configured:
        return Path(configured)
    return _HOME / ".cache" / "rho-tests" / "npm"


def missing_node() -> str | None:
    """Why the reference server cannot run here (it runs on node, installed with npm), or
    None where it can."""
    if shutil.which("node") is None:
        return "node is not installed (the reference MCP server runs on node)"
    installed = (npm_cache() / "node_modules" / ".bin" / "mcp-server-everything").exists()
    if not installed and shutil.which("npm") is None:
        return "npm is not installed (it installs the reference MCP server, which runs on node)"
    return None


def everything_server() -> Path:
    """The `mcp-server-everything` command, installed into `npm_cache()` on first use."""
    prefix = npm_cache()
    command = prefix / "node_modules" / ".bin" / "mcp-server-everything"
    if command.exists():
        return command
    prefix.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed to install the reference MCP server"
    with open(prefix / ".lock", "w") as lock:  # test workers install it once between them
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not command.exists():
            subprocess.run(
                [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", EVERYTHING],
                check=True,
                capture_output=True,
                timeout=600,
            )
    return command


if __name__ == "__main__":  # `.ci/run` installs the reference server before the tests
    print(everything_server())
