"""The tool contract, the `@tool` decorator and the registry."""

from rho_kernel.tools.base import (
    Continuation,
    Outliner,
    OutputSink,
    Phase,
    Risk,
    RiskOfCall,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
)
from rho_kernel.tools.decorator import FunctionTool, tool
from rho_kernel.tools.intercept import Block, Rewrite
from rho_kernel.tools.registry import DuplicateToolError, ToolRegistry

__all__ = [
    "Block",
    "Continuation",
    "DuplicateToolError",
    "FunctionTool",
    "Outliner",
    "OutputSink",
    "Phase",
    "Rewrite",
    "Risk",
    "RiskOfCall",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "tool",
]
