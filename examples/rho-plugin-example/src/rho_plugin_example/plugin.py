"""The hook implementations rho calls: what this plugin contributes.

rho imports this module through the entry point and calls each `@hookimpl` function whose
name matches a hook in `rho_kernel.hookspecs`. A function may take any subset of the hook's
arguments (here `rho_register_observers` ignores `config`).
"""

from __future__ import annotations

from pathlib import Path

from rho_kernel import Observer, RhoConfig, Tool, ToolCall, ToolResult, hookimpl

from rho_plugin_example.masking import mask_emails
from rho_plugin_example.tally import CallTally
from rho_plugin_example.tools import Scratchpad, word_count


@hookimpl
def rho_register_tools(config: RhoConfig, root: Path) -> list[Tool]:
    """Called once at startup: one `Scratchpad` for the whole process keeps its notes."""
    return [word_count, Scratchpad()]


@hookimpl
def rho_register_observers() -> list[Observer]:
    """Called once per prompt: a fresh tally for each prompt."""
    return [CallTally()]


@hookimpl
def rho_after_tool_call(call: ToolCall, result: ToolResult) -> ToolResult | None:
    """Called after every tool call, whichever plugin's tool ran: mask e-mail addresses."""
    return mask_emails(result)
