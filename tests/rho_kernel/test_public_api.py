"""The plugin author's surface: one import, keyword arguments, shipped types."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import BaseModel

import rho_kernel
from rho_kernel import RpcMethod, ServiceFactory

REPO = Path(__file__).resolve().parents[2]
PACKAGES = sorted((REPO / "packages").glob("*/src/*/__init__.py"))

#: What docs/plugins.md promises a plugin can import from `rho_kernel`.
PROMISED = {
    "ApprovalDecision": "rho_kernel.loop.approval",
    "ApprovalGate": "rho_kernel.loop.approval",
    "ApprovalRequest": "rho_kernel.loop.approval",
    "Observer": "rho_kernel.loop.observer",
    "RequestUsage": "rho_kernel.loop.result",
    "RhoConfig": "rho_kernel.config.model",
    "RpcError": "rho_kernel.rpc",
    "RpcMethod": "rho_kernel.rpc",
    "SandboxRoot": "rho_kernel.security.sandbox",
    "ServiceFactory": "rho_kernel.providers.service",
    "Tool": "rho_kernel.tools.base",
    "ToolContext": "rho_kernel.tools.base",
    "ToolResult": "rho_kernel.tools.base",
    "UsageContext": "rho_kernel.loop.result",
    "hookimpl": "rho_kernel.plugins",
    "tool": "rho_kernel.tools.decorator",
}


@pytest.mark.parametrize("name", sorted(PROMISED))
def test_plugin_api_is_exported_by_rho_kernel(name: str) -> None:
    module = __import__(PROMISED[name], fromlist=[name])
    assert name in rho_kernel.__all__
    assert getattr(rho_kernel, name) is getattr(module, name)


def test_every_exported_name_exists() -> None:
    missing = [name for name in rho_kernel.__all__ if not hasattr(rho_kernel, name)]
    assert missing == []


class _Params(BaseModel):
    text: str


async def _echo(params: _Params) -> dict[str, str]:
    return {"text": params.text}


def test_rpc_method_takes_its_options_by_keyword() -> None:
    method = RpcMethod(
        "echo", _echo, params_model=_Params, summary="Echo the text back.", concurrent=True
    )
    assert (method.params_model, method.result_model, method.concurrent) == (_Params, None, True)
    with pytest.raises(TypeError):
        RpcMethod("echo", _echo, _Params)  # type: ignore[misc]


def test_service_factory_takes_keywords_only() -> None:
    def create(
        endpoint: str,
        api_key: str | None,
        provider_name: str,
        *,
        first_token_timeout: float,
        idle_timeout: float,
    ) -> object:
        return object()

    assert ServiceFactory(api="echo", create=create).api == "echo"  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ServiceFactory("echo", create)  # type: ignore[misc]


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.DOTALL)


def test_plugins_doc_imports_rho_only_from_rho_kernel() -> None:
    blocks = _python_blocks((REPO / "docs" / "plugins.md").read_text(encoding="utf-8"))
    assert blocks
    imported: set[str] = set()
    for block in blocks:
        for node in ast.walk(ast.parse(textwrap.dedent(block))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    outside = {
        name for name in imported if name.startswith("rho_kernel.") and name != "rho_kernel.testing"
    }
    assert outside == set()
    assert "rho_kernel" in imported


def test_plugins_doc_lists_exactly_the_public_api() -> None:
    text = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = text.split("## The public API", 1)[1].split("\n## ", 1)[0]
    listed = section.split("\n- ", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(rho_kernel.__all__)


def test_every_package_ships_py_typed() -> None:
    assert PACKAGES
    assert [init.parent.name for init in PACKAGES if not (init.parent / "py.typed").is_file()] == []


PLUGIN = '''
from pydantic import BaseModel

from rho_kernel import RpcMethod, Runtime, Tool, ToolContext, ToolResult, hookimpl, tool


class EchoParams(BaseModel):
    text: str


@tool(risk="read")
def shout(text: str, ctx: ToolContext) -> str:
    """Shout."""
    return text.upper()


@hookimpl
def rho_register_tools(config, root) -> list[Tool]:
    return [shout]


@hookimpl
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    async def echo(params: EchoParams) -> dict[str, str]:
        return {"text": params.text, "model": runtime.model}

    wrong: ToolResult = ToolResult(output=3)
    return [RpcMethod("echo", echo, params_model=EchoParams, summary=wrong)]
'''


def test_plugin_code_is_type_checked_against_the_installed_kernel(tmp_path: Path) -> None:
    plugin = tmp_path / "my_plugin.py"
    plugin.write_text(PLUGIN, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "--hide-error-context",
            "--no-error-summary",
            str(plugin),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [
        line.split(": error: ", 1)[1] for line in result.stdout.splitlines() if ": error: " in line
    ]
    # Only the two planted mistakes: the kernel's own types are seen (its py.typed), and
    # RpcMethod's summary is a str.
    assert len(errors) == 2, result.stdout + result.stderr
    assert 'Argument "output" to "ToolResult" has incompatible type "int"' in errors[0]
    assert 'Argument "summary" to "RpcMethod" has incompatible type "ToolResult"' in errors[1]


def test_names_renamed_in_0_3_still_import_as_the_same_objects() -> None:
    from rho_kernel import (
        ConfinementProblem,
        Problem,
        any_change,
        changes,
        disables,
        enables,
        turns_off,
        turns_on,
    )

    assert Problem is ConfinementProblem
    assert (changes, enables, disables) == (any_change, turns_on, turns_off)
