"""Checks for a pack's declared tools (`rho_kernel.tools.DeclaredTool`)."""

from __future__ import annotations

from rho_kernel.tools import DeclaredTool

#: What a declared tool tells rho before its implementation is imported.
DECLARED_ATTRIBUTES = (
    "name",
    "risk",
    "phase",
    "runs_processes",
    "confined_risk",
    "fresh_process_per_call",
    "rule_subject",
)


def declared_differences(tool: DeclaredTool) -> list[str]:
    """Where `tool` tells rho something its implementation does not say: `"schema"` when the
    stored description or parameters differ (rewrite the schemas file), and each declared
    attribute that differs. Empty when they agree. Imports the implementation."""
    real = tool.target
    differences = ["schema"] if tool.schema() != real.schema() else []
    differences += [
        name for name in DECLARED_ATTRIBUTES if getattr(tool, name) != getattr(real, name)
    ]
    return differences


__all__ = ["DECLARED_ATTRIBUTES", "declared_differences"]
