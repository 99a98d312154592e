"""The declared Rust tools: what they tell rho before import equals what their implementations
say, and every use goes to the implementation."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.testing import declared_differences
from rho_kernel.tools import DeclaredTool, ToolContext, ToolDeclaration, ToolResult
from rho_tools_rust.declared import DECLARATIONS, SCHEMAS


@pytest.mark.parametrize("declaration", DECLARATIONS, ids=lambda d: d.name)
def test_declared_tool_says_what_its_implementation_says(declaration: ToolDeclaration) -> None:
    differences = declared_differences(DeclaredTool(declaration, SCHEMAS))
    assert differences == [], "after changing a tool: python -m rho_tools_rust.declared"


async def test_calls_and_outlines_go_to_the_implementation(tmp_path: Path) -> None:
    tool = DeclaredTool(next(d for d in DECLARATIONS if d.name == "rustc_explain"), SCHEMAS)
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    result = await tool.execute({"error_code": "not a code"}, ctx)
    expected = await tool.target.execute({"error_code": "not a code"}, ctx)
    assert result.is_error and result.output == expected.output
    arguments = {"error_code": "E0308"}
    done = ToolResult("E0308: mismatched types")
    assert tool.outline(arguments, done) == tool.target.outline(arguments, done)
    assert tool.call_risk(arguments) == tool.target.call_risk(arguments)


def test_the_build_tools_offer_one_off_escalation() -> None:
    from rho_kernel.approvals.escalation import offers_escalation
    from rho_kernel.tools import declared_tools
    from rho_tools_rust.declared import DECLARATIONS, SCHEMAS

    offering = {
        tool.name for tool in declared_tools(DECLARATIONS, SCHEMAS) if offers_escalation(tool)
    }
    assert offering == {"cargo_check", "cargo_clippy", "cargo_test", "cargo_fix"}
