"""Configuring the SDK-written test server (tests/rho_mcp/mcp_test_server.py) for a rho."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parents[1] / "rho_mcp" / "mcp_test_server.py"

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


def user_servers(home: Path, *tables: str) -> None:
    """Write the user's config with these server tables."""
    config = home / ".rho" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(tables))


def mcp_servers(rho: Any) -> dict[str, dict[str, Any]]:
    """`listMcpServers` by name."""
    return {s["name"]: s for s in rho.call("listMcpServers")["result"]["servers"]}
