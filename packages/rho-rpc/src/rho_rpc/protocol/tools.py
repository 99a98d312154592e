"""`listTools`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from rho_rpc.protocol.base import Result, Wire
from rho_rpc.protocol.state import SandboxInfo


class ToolInfo(Wire):
    """A tool the model can call."""

    name: str
    description: str
    risk: Literal["read", "write", "destructive", "network"]
    parameters: dict[str, Any]
    plugin: str | None = Field(None, description="The plugin that contributed the tool.")
    runsProcesses: bool = Field(False, description="Whether the tool starts processes.")
    confined: bool = Field(
        False, description="Whether the processes it starts run in the OS sandbox."
    )


class ListToolsResult(Result):
    """`listTools` result."""

    tools: list[ToolInfo]
    sandbox: SandboxInfo = Field(description="How commands run for the model are confined.")


__all__ = ["ListToolsResult", "ToolInfo"]
