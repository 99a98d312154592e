"""rho's plugin kernel: the hooks, the tool contract, sessions, the agent loop and providers.

A plugin needs one import: `from rho_kernel import hookimpl, tool`.
"""

from rho_kernel.messages import ChatMessage, ToolCall
from rho_kernel.plugins import hookimpl
from rho_kernel.tools import (
    Block,
    Phase,
    Rewrite,
    Risk,
    Tool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    tool,
)

__version__ = "0.2.0"

__all__ = [
    "Block",
    "ChatMessage",
    "Phase",
    "Rewrite",
    "Risk",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "__version__",
    "hookimpl",
    "tool",
]
