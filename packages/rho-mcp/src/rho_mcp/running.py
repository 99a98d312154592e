"""The runtime's `McpManager`, made by the work `rho_startup` starts (after `ready`).

Reading the configured servers is the work's first step, and only when there are servers is
the SDK imported (in a thread: it takes about a second of CPU) and are they started.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING

from rho_kernel import StashKey

if TYPE_CHECKING:
    from rho_kernel import Runtime
    from rho_mcp.manager import McpManager

#: The runtime's manager, once made (None: no server is configured).
MANAGER: StashKey[McpManager | None] = StashKey("rho-mcp manager")
#: Set once the configured servers are known (the manager made, or found unneeded).
KNOWN: StashKey[asyncio.Event] = StashKey("rho-mcp servers known")


def current_manager(runtime: Runtime) -> McpManager | None:
    """The manager, when servers are configured and have been read."""
    return runtime.stash.get(MANAGER)


async def known_manager(runtime: Runtime) -> McpManager | None:
    """The manager once the configured servers are known (None: there are none, or MCP was
    not started in this runtime)."""
    known = runtime.stash.get(KNOWN)
    if known is None:
        return None
    await known.wait()
    return current_manager(runtime)


def start(runtime: Runtime) -> None:
    """Start reading and starting the servers in the background."""
    runtime.stash[KNOWN] = asyncio.Event()
    runtime.start_work(_start(runtime), "starting MCP servers")


async def _start(runtime: Runtime) -> None:
    known = runtime.stash[KNOWN]
    try:
        from rho_mcp.extra import EXTRA_SERVERS
        from rho_mcp.sources import any_configured

        given = runtime.stash.get(EXTRA_SERVERS)
        if not given and not any_configured(runtime.root.path, runtime.options.home):
            return
        manager_module = await asyncio.to_thread(importlib.import_module, "rho_mcp.manager")
        manager: McpManager = manager_module.McpManager(runtime)
        runtime.stash[MANAGER] = manager
    finally:
        known.set()
    await manager.start_all()


__all__ = ["KNOWN", "MANAGER", "current_manager", "known_manager", "start"]
