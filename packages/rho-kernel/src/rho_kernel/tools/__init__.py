"""The tool contract, the `@tool` decorator and the registry, and what a tool that writes
files needs to preview its change for the approval (`Preview`, `PlanChanged`,
`fingerprint`, `unified_preview`; added in 0.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.approvals.preview import PlanChanged, Preview, fingerprint, unified_preview
    from rho_kernel.tools.base import (
        Checker,
        Continuation,
        Outliner,
        OutputSink,
        Phase,
        Previewer,
        Risk,
        RiskOfCall,
        Tool,
        ToolContext,
        ToolError,
        ToolResult,
    )
    from rho_kernel.tools.declared import (
        DeclaredTool,
        ToolDeclaration,
        declared_tools,
        implementation_schemas,
        write_schemas,
    )
    from rho_kernel.tools.decorator import FunctionTool, tool
    from rho_kernel.tools.intercept import (
        Block,
        Intercepted,
        Permission,
        Rewrite,
        apply_interception,
    )
    from rho_kernel.tools.registry import DuplicateToolError, ToolRegistry

_ORIGIN = exports_of(
    {
        "rho_kernel.approvals.preview": (
            "PlanChanged",
            "Preview",
            "fingerprint",
            "unified_preview",
        ),
        "rho_kernel.tools.base": (
            "Checker",
            "Continuation",
            "Outliner",
            "OutputSink",
            "Phase",
            "Previewer",
            "Risk",
            "RiskOfCall",
            "Tool",
            "ToolContext",
            "ToolError",
            "ToolResult",
        ),
        "rho_kernel.tools.declared": (
            "DeclaredTool",
            "ToolDeclaration",
            "declared_tools",
            "implementation_schemas",
            "write_schemas",
        ),
        "rho_kernel.tools.decorator": ("FunctionTool", "tool"),
        "rho_kernel.tools.intercept": (
            "Block",
            "Intercepted",
            "Permission",
            "Rewrite",
            "apply_interception",
        ),
        "rho_kernel.tools.registry": ("DuplicateToolError", "ToolRegistry"),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "Block",
    "Checker",
    "Continuation",
    "DeclaredTool",
    "DuplicateToolError",
    "FunctionTool",
    "Intercepted",
    "Outliner",
    "OutputSink",
    "Permission",
    "Phase",
    "PlanChanged",
    "Preview",
    "Previewer",
    "Rewrite",
    "Risk",
    "RiskOfCall",
    "Tool",
    "ToolContext",
    "ToolDeclaration",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "apply_interception",
    "declared_tools",
    "fingerprint",
    "implementation_schemas",
    "tool",
    "unified_preview",
    "write_schemas",
]
