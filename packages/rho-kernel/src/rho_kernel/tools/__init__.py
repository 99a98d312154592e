"""The tool contract, the `@tool` decorator and the registry."""

from rho_kernel.tools.base import Phase, Risk, Tool, ToolContext, ToolError, ToolResult
from rho_kernel.tools.decorator import FunctionTool, tool
from rho_kernel.tools.intercept import Block, Rewrite
from rho_kernel.tools.registry import DuplicateToolError, ToolRegistry

__all__ = [
    "Block",
    "DuplicateToolError",
    "FunctionTool",
    "Phase",
    "Rewrite",
    "Risk",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "tool",
]
