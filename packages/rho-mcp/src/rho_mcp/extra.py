"""Servers a front end gives one runtime (an editor's, through `rho acp`): your own servers
for that runtime only — trusted, unconfined, started with the configured ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rho_kernel import StashKey

if TYPE_CHECKING:
    from rho_kernel import Runtime
    from rho_mcp.config import McpServerConfig

#: The runtime's extra servers by name.
EXTRA_SERVERS: StashKey[dict[str, McpServerConfig]] = StashKey("rho-mcp extra servers")


def add_servers(runtime: Runtime, servers: Mapping[str, McpServerConfig]) -> None:
    """Start `servers` (name → config) in `runtime` too, as your own; call it before
    `rho_startup`. A name a config file also uses is replaced by these."""
    runtime.stash.setdefault(EXTRA_SERVERS, {}).update(servers)


__all__ = ["EXTRA_SERVERS", "add_servers"]
