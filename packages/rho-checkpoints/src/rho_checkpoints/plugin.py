"""The `rho-checkpoints` plugin (entry point `rho-checkpoints = "rho_checkpoints.plugin"`):
records the project's files as a prompt starts, before each tool call that can change them
and as each turn ends, and adds `diffCheckpoint` and `restoreFiles`.

Nothing heavy is imported at startup: git runs on the first snapshot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_kernel import Observer, hookimpl

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rho_checkpoints.recorder import Recorder
    from rho_kernel import (
        AgentResult,
        ProviderFailure,
        RhoConfig,
        RpcMethod,
        Runtime,
        Tool,
        ToolCall,
    )

#: The config table this plugin reads.
SECTION = "checkpoints"

#: The methods: name, summary, and whether it runs while a prompt runs.
METHODS = (
    (
        "diffCheckpoint",
        "The files that differ between a point of the conversation and now, each with a "
        "bounded, redacted diff.",
        True,
    ),
    (
        "restoreFiles",
        "Return the project's files (all, or some) to how they were at a point of the "
        "conversation, or undo the last restore.",
        False,
    ),
)


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[checkpoints]`."""
    from rho_checkpoints.config import CheckpointsConfig

    return {SECTION: CheckpointsConfig}


@hookimpl
def rho_startup(runtime: Runtime) -> None:
    """Make the runtime's recorder, unless `[checkpoints] enabled = false`."""
    from rho_checkpoints.config import CheckpointsConfig

    config = runtime.config.section(SECTION, CheckpointsConfig)
    if config.enabled:
        from rho_checkpoints.current import RECORDER
        from rho_checkpoints.recorder import Recorder

        recorder = Recorder(
            runtime, config.max_file_mb << 20, config.max_size_mb << 20, config.max_files
        )
        runtime.stash[RECORDER] = recorder
        recorder.prime_in_background()


@hookimpl
async def rho_prompt_starting(runtime: Runtime) -> None:
    """Make the runtime's recorder the prompt's, and record the files as it starts."""
    from rho_checkpoints.current import CURRENT, recorder_of

    recorder = recorder_of(runtime)
    CURRENT.set(recorder)
    if recorder is not None:
        await recorder.snapshot("turn_start")


def _changes_files(tool: Tool | None) -> bool:
    from rho_kernel import Risk

    return tool is not None and (tool.risk != Risk.READ or tool.runs_processes)


@hookimpl
def rho_before_tool_call(call: ToolCall, arguments: dict[str, Any], tool: Tool | None) -> Any:
    """Before a call that can change files: record them (an awaitable that answers None)."""
    from rho_checkpoints.current import CURRENT

    recorder = CURRENT.get()
    if recorder is None or not _changes_files(tool):
        return None
    return _before_call(recorder, call.id)


async def _before_call(recorder: Recorder, call_id: str) -> None:
    await recorder.snapshot("before_call", call_id)


class _TurnEnd(Observer):
    """Records the files as a turn ends."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    async def on_agent_end(self, result: AgentResult) -> None:
        await self.recorder.snapshot("turn_end")
        await self.recorder.prune()

    async def on_agent_error(self, error: str, failure: ProviderFailure | None = None) -> None:
        await self.recorder.snapshot("turn_end")  # what the failed turn changed stays undoable


@hookimpl
def rho_register_observers(config: RhoConfig, runtime: Runtime) -> list[Observer]:
    """The observer that records the files as each turn ends."""
    from rho_checkpoints.current import recorder_of

    recorder = recorder_of(runtime)
    return [_TurnEnd(recorder)] if recorder is not None else []


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """`diffCheckpoint` and `restoreFiles` (imported on their first request)."""
    from rho_kernel.rpc import deferred_methods

    def build() -> list[RpcMethod]:
        from rho_checkpoints.rpc import checkpoint_methods

        return checkpoint_methods(runtime)

    return deferred_methods(METHODS, build)


__all__ = [
    "METHODS",
    "SECTION",
    "rho_before_tool_call",
    "rho_prompt_starting",
    "rho_register_config_sections",
    "rho_register_observers",
    "rho_register_rpc_methods",
    "rho_startup",
]
