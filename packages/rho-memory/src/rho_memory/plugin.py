"""The `rho-memory` plugin (entry point `rho-memory = "rho_memory.plugin"`): owns `[memory]`,
contributes the `memory` tool when `[memory] enabled = true`, and the `ingestMemory` method.

Nothing here imports `sqlite3`: the knowledge base is opened on its first use.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from rho_kernel import hookimpl
from rho_memory.config import MemoryConfig

if TYPE_CHECKING:
    from rho_kernel import RhoConfig, RpcMethod, Runtime, Tool

#: The config section this plugin reads.
SECTION = "memory"

#: What `ingestMemory` does, in the OpenRPC document.
INGEST_SUMMARY = (
    "Load the project's Markdown and text files under a path into the knowledge base, one "
    "document per section; files unchanged since their last ingest are skipped."
)


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[memory]` (read it with `config.section("memory", MemoryConfig)`)."""
    return {SECTION: MemoryConfig}


@hookimpl
def rho_register_tools(config: RhoConfig, root: Path) -> list[Tool]:
    """The `memory` tool over `<root>/.rho/memory.db`, only when `[memory] enabled = true`."""
    if not config.section(SECTION, MemoryConfig).enabled:
        return []
    from rho_kernel.security import SandboxRoot
    from rho_memory.project import ProjectMemory
    from rho_memory.tool import MemoryTool

    return [MemoryTool(ProjectMemory(SandboxRoot(root)))]


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """`ingestMemory` (it answers an error while the knowledge base is off; its handler and
    models are imported on its first request, see `rho_memory.rpc`)."""
    from rho_kernel import DeferredMethod

    def load() -> RpcMethod:
        from rho_memory.rpc import ingest_method

        return ingest_method(runtime)

    return [DeferredMethod("ingestMemory", load, summary=INGEST_SUMMARY)]


@hookimpl
def rho_shutdown(runtime: Runtime) -> None:
    """Close the knowledge base if a call opened it."""
    tool_module = sys.modules.get("rho_memory.tool")
    if tool_module is None:  # no memory tool was made, so there is nothing to close
        return
    tool = runtime.tools.get("memory")
    if isinstance(tool, tool_module.MemoryTool):
        tool.project.close()


__all__ = [
    "INGEST_SUMMARY",
    "SECTION",
    "rho_register_config_sections",
    "rho_register_rpc_methods",
    "rho_register_tools",
    "rho_shutdown",
]
