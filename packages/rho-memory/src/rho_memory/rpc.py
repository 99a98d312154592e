"""`ingestMemory`: the client loads the project's Markdown and text docs into the knowledge
base (the same work as the tool's ingest operation)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict, Field

from rho_kernel import RpcError, RpcMethod, Runtime
from rho_kernel.rpc import INVALID_PARAMS
from rho_memory.plugin import INGEST_SUMMARY

#: The error code of a knowledge base that is off or cannot be used.
MEMORY_UNAVAILABLE = -32010


class _Model(BaseModel):
    """Base of these methods' models: their schemas are built on first use, off start-up."""

    model_config = ConfigDict(defer_build=True)


class IngestMemoryParams(_Model):
    """`ingestMemory` params: a file or folder inside the project (default: all of it)."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(".", description="A Markdown/text file or folder, relative to the root.")


class SkippedFile(_Model):
    """A file ingest did not load, and why."""

    path: str
    reason: str


class IngestMemoryResult(_Model):
    """What an ingest did, counted in files (and the documents it wrote)."""

    files: int = Field(description="Markdown/text files seen.")
    added: int = Field(description="Files ingested for the first time.")
    updated: int = Field(description="Files that changed since their last ingest.")
    unchanged: int = Field(description="Files left as they were.")
    removed: int = Field(description="Files gone since their last ingest (documents removed).")
    documents: int = Field(description="Documents (sections) written.")
    skipped: list[SkippedFile]
    truncated: bool = Field(description="Whether the walk stopped at the file limit.")


def ingest_method(runtime: Runtime) -> RpcMethod:
    """`ingestMemory`, bound to `runtime` (its `memory` tool holds the knowledge base)."""

    async def handle(params: IngestMemoryParams) -> IngestMemoryResult:
        from rho_memory.tool import MemoryTool

        tool = runtime.tools.get("memory")
        if not isinstance(tool, MemoryTool):
            raise RpcError(
                MEMORY_UNAVAILABLE,
                "the knowledge base is off: set [memory] enabled = true in .rho/config.toml",
            )
        from rho_kernel.security import SandboxError
        from rho_memory.ingestion import ingest
        from rho_memory.store import MemoryStoreError

        try:
            memory = await asyncio.to_thread(tool.project.open)
            report = await asyncio.to_thread(ingest, memory, tool.project.root, params.path)
        except SandboxError as exc:
            raise RpcError(INVALID_PARAMS, f"Invalid params: path: {exc}") from None
        except MemoryStoreError as exc:
            raise RpcError(
                MEMORY_UNAVAILABLE, f"the knowledge base cannot be used: {exc}"
            ) from None
        return IngestMemoryResult.model_validate(report.to_dict())

    return RpcMethod(
        "ingestMemory",
        handle,
        params_model=IngestMemoryParams,
        result_model=IngestMemoryResult,
        summary=INGEST_SUMMARY,
    )


__all__ = [
    "MEMORY_UNAVAILABLE",
    "IngestMemoryParams",
    "IngestMemoryResult",
    "SkippedFile",
    "ingest_method",
]
