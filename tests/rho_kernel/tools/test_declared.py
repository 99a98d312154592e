"""`DeclaredTool`: registered from a declaration and a stored schema file, its module imported on
first use; without the file the implementation describes itself."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.testing import declared_differences
from rho_kernel.tools import (
    DeclaredTool,
    Phase,
    Risk,
    ToolContext,
    ToolDeclaration,
    declared_tools,
    write_schemas,
)

SHOUT = '''
from rho_kernel.tools import Phase, Risk, tool


@tool(risk=Risk.READ, phase=Phase.EXPLORATION)
def shout(text: str) -> str:
    """Say the text louder."""
    return text.upper()
'''


@pytest.fixture
def declaration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ToolDeclaration:
    """A tool in a module of its own (named for this test, so no other test has imported it)."""
    module = f"declared_shout_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(SHOUT))
    monkeypatch.syspath_prepend(str(tmp_path))
    return ToolDeclaration("shout", module, "shout", Risk.READ, Phase.EXPLORATION)


async def test_the_module_is_imported_on_the_first_call_only(
    declaration: ToolDeclaration, tmp_path: Path
) -> None:
    schemas = tmp_path / "schemas.json"
    write_schemas([declaration], schemas)
    sys.modules.pop(declaration.module)  # written from the implementation: start afresh
    [tool] = declared_tools([declaration], schemas)
    assert tool.schema() == json.loads(schemas.read_text())[0]
    assert (tool.name, tool.risk, tool.phase) == ("shout", Risk.READ, Phase.EXPLORATION)
    assert declaration.module not in sys.modules
    ctx = ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())
    result = await tool.execute({"text": "hi"}, ctx)
    assert result.output == "HI" and declaration.module in sys.modules
    assert isinstance(tool, DeclaredTool) and declared_differences(tool) == []


def test_without_the_file_the_implementation_describes_the_tool(
    declaration: ToolDeclaration, tmp_path: Path
) -> None:
    tool = DeclaredTool(declaration, tmp_path / "missing.json")
    assert tool.schema() == tool.target.schema()
    assert tool.description == "Say the text louder."


def test_a_stale_file_or_a_wrong_declaration_is_named(
    declaration: ToolDeclaration, tmp_path: Path
) -> None:
    schemas = tmp_path / "schemas.json"
    write_schemas([declaration], schemas)
    stored = json.loads(schemas.read_text())
    stored[0]["description"] = "Say it quietly."
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(stored))
    assert declared_differences(DeclaredTool(declaration, stale)) == ["schema"]
    riskier = ToolDeclaration("shout", declaration.module, "shout", Risk.WRITE, None)
    assert declared_differences(DeclaredTool(riskier, schemas)) == ["risk", "phase"]
