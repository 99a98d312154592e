"""The `rho-hooks` plugin (entry point `rho-hooks = "rho_hooks.plugin"`): lifecycle hooks as
external commands in Claude Code's format, on the kernel's hooks — interception
(PreToolUse, PostToolUse), the prompt's start and end (UserPromptSubmit, Stop), observers
(PreCompact, Notification) and the runtime's start and end (SessionStart, SessionEnd).

With no hook configured nothing more is imported and no process is started: each hook here
answers None after a look at the runtime's state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_kernel import hookimpl

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rho_kernel import Observer, RhoConfig, RpcMethod, Runtime, Tool, ToolCall, ToolResult

#: The config table this plugin reads.
SECTION = "hooks"

#: The method: name, summary, and whether it runs while a prompt runs.
METHODS = (
    (
        "listHooks",
        "Every configured hook: its event, matcher and command, the file it comes from and "
        "whether it runs (a repository's hooks run only once the project is trusted).",
        True,
    ),
)


@hookimpl
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare `[hooks]` (`[[hooks.PreToolUse]]` tables and the settings)."""
    from rho_hooks.config import HooksTable

    return {SECTION: HooksTable}


@hookimpl
def rho_project_files_to_trust(root: Path) -> list[str]:
    """Claude Code's project settings files: their hooks run only while trusted."""
    from rho_hooks.sources import TRUST_FILES

    return [name for name in TRUST_FILES if (root / name).is_file()]


@hookimpl
def rho_startup(runtime: Runtime) -> None:
    """Read the configured hooks and start the SessionStart ones — only when `[hooks]`
    names any, or Claude Code's settings are to be read."""
    from rho_hooks.config import EVENTS, HooksTable

    table = runtime.config.section(SECTION, HooksTable)
    if table.claude_settings or any(table.hooks(event) for event in EVENTS):
        from rho_hooks.lifecycle import start

        start(runtime, table)


@hookimpl
def rho_shutdown(runtime: Runtime) -> None:
    """Run the SessionEnd hooks (bounded by their timeouts)."""
    from rho_hooks.current import state_of

    state = state_of(runtime)
    if state is not None and state.has("SessionEnd"):
        from rho_hooks.lifecycle import end

        end(state)


@hookimpl
async def rho_prompt_starting(runtime: Runtime, message: str) -> Any:
    """Make the runtime's hooks the prompt's; run the UserPromptSubmit hooks."""
    from rho_hooks.current import CURRENT, state_of

    state = state_of(runtime)
    CURRENT.set(state)
    if state is None or not (state.has("UserPromptSubmit") or state.session_start):
        return None
    from rho_hooks.events import user_prompt_submit

    return await user_prompt_submit(state, message)


@hookimpl
def rho_before_tool_call(call: ToolCall, arguments: dict[str, Any], tool: Tool | None) -> Any:
    """The PreToolUse hooks (an awaitable answer, only when some are configured)."""
    from rho_hooks.current import CURRENT

    state = CURRENT.get()
    if state is None or not state.has("PreToolUse"):
        return None
    from rho_hooks.events import pre_tool_use

    return pre_tool_use(state, call, arguments, tool)


@hookimpl
def rho_after_tool_call(call: ToolCall, result: ToolResult) -> Any:
    """The PostToolUse hooks (an awaitable answer, only when some are configured)."""
    from rho_hooks.current import CURRENT

    state = CURRENT.get()
    if state is None or not state.has("PostToolUse"):
        return None
    from rho_hooks.events import post_tool_use

    return post_tool_use(state, call, result)


@hookimpl
async def rho_turn_ending(runtime: Runtime, continued: int) -> str | None:
    """The Stop hooks: a block continues the turn with its reason."""
    from rho_hooks.current import state_of

    state = state_of(runtime)
    if state is None or not state.has("Stop"):
        return None
    from rho_hooks.events import stop

    return await stop(state, continued)


@hookimpl
def rho_register_observers(config: RhoConfig, runtime: Runtime) -> list[Observer]:
    """The observer that runs the PreCompact and Notification hooks, when there are any."""
    from rho_hooks.current import state_of

    state = state_of(runtime)
    if state is None or not (state.has("PreCompact") or state.has("Notification")):
        return []
    from rho_hooks.lifecycle import HookObserver

    return [HookObserver(state)]


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """`listHooks` (its handler and models are imported on the first request)."""
    from rho_kernel.rpc import deferred_methods

    def build() -> list[RpcMethod]:
        from rho_hooks.rpc import hook_methods

        return hook_methods(runtime)

    return deferred_methods(METHODS, build)


__all__ = [
    "METHODS",
    "SECTION",
    "rho_after_tool_call",
    "rho_before_tool_call",
    "rho_project_files_to_trust",
    "rho_prompt_starting",
    "rho_register_config_sections",
    "rho_register_observers",
    "rho_register_rpc_methods",
    "rho_shutdown",
    "rho_startup",
    "rho_turn_ending",
]
