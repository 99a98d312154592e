"""The resource tools' risk: `read`, unless a server's own `risk` says more."""

from __future__ import annotations

from pathlib import Path

from rho_kernel import Risk
from rho_mcp.config import McpServerConfig
from rho_mcp.connection import ServerConnection
from rho_mcp.resources import ListResources, ReadResource
from rho_mcp.sources import ServerSpec


def _connection(name: str, risk: str | None = None) -> ServerConnection:
    config = McpServerConfig(command="x", risk=risk)  # type: ignore[arg-type]
    return ServerConnection(
        ServerSpec(name, config, "user", Path("/c")), lambda _: None, lambda _: None
    )


def test_reads_are_read_unless_the_server_says_otherwise() -> None:
    servers = {"docs": _connection("docs"), "db": _connection("db", "destructive")}
    read, listing = ReadResource(servers), ListResources(servers)
    assert read.call_risk({"server": "docs", "uri": "x"}) is Risk.READ
    assert read.call_risk({"server": "db", "uri": "x"}) is Risk.DESTRUCTIVE
    assert listing.call_risk({"server": "docs"}) is Risk.READ
    assert listing.call_risk({}) is Risk.DESTRUCTIVE  # every server: the most careful
    assert read.call_risk({"server": ["not", "a", "name"]}) is Risk.DESTRUCTIVE
