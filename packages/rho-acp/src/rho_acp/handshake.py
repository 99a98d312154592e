"""The answer to `initialize`, as plain JSON: `rho acp` answers it before the SDK (about
0.6 s of imports) is loaded, so an editor's handshake takes what rho's own `ready` takes."""

from __future__ import annotations

import importlib.util
from typing import Any

#: The ACP version rho speaks.
PROTOCOL_VERSION = 1
#: rho's extension methods (see `rho_acp.extensions`), as advertised.
EXTENSION_METHODS = ("_rho/branchTo", "_rho/compact", "_rho/restore", "_rho/steer", "_rho/tree")


def mcp_installed() -> bool:
    """Whether rho-mcp is installed (then the agent advertises MCP)."""
    return importlib.util.find_spec("rho_mcp") is not None


def initialize_result(params: Any) -> dict[str, Any]:
    """The `initialize` result for the request's `params` (the version both speak, what rho
    offers, who it is)."""
    from rho_kernel.frontend import rho_version

    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    version = asked if isinstance(asked, int) and 0 < asked < PROTOCOL_VERSION else PROTOCOL_VERSION
    capabilities: dict[str, Any] = {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
        "sessionCapabilities": {"list": {}, "fork": {}, "resume": {}, "close": {}},
        "_meta": {"rho": {"methods": list(EXTENSION_METHODS)}},
    }
    if mcp_installed():
        capabilities["mcpCapabilities"] = {"http": True, "sse": False}
    return {
        "protocolVersion": version,
        "agentCapabilities": capabilities,
        "agentInfo": {"name": "rho", "title": "rho", "version": rho_version()},
        "authMethods": [],
    }


__all__ = ["EXTENSION_METHODS", "PROTOCOL_VERSION", "initialize_result", "mcp_installed"]
