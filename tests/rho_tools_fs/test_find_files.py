"""find_files through ripgrep and through the Python fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext, ToolResult
from rho_tools_fs.find_files import find_files


async def find(root: Path, **args: Any) -> ToolResult:
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    return await find_files.execute(dict(args), ctx)


def build(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = build(
        tmp_path / "p",
        [
            "Cargo.toml", "src/main.rs", "src/lib.rs", "src/bin/tool.rs", "target/debug/x.rs",
            ".hidden/h.rs", ".git/HEAD", "a-c.rs", "a/b.rs", "notes.tmp", "keep.tmp",
        ],
    )  # fmt: skip
    (root / ".gitignore").write_text("target/\n*.tmp\n!keep.tmp\n")
    return root


async def test_matches_file_names_skipping_hidden_and_ignored(engine: str, tree: Path) -> None:
    result = await find(tree, pattern="*.rs")
    assert result.output.split("\n") == [
        "a/b.rs", "a-c.rs", "src/bin/tool.rs", "src/lib.rs", "src/main.rs",
    ]  # fmt: skip
    assert find_files.outline({"pattern": "*.rs"}, result) == "find_files '*.rs': 5 files"


async def test_negation_and_directories_are_not_returned(engine: str, tree: Path) -> None:
    assert (await find(tree, pattern="*.tmp")).output == "keep.tmp"
    assert (await find(tree, pattern="src")).output == "No files matching 'src'"


async def test_scope_and_path_globs(engine: str, tree: Path) -> None:
    assert (await find(tree, pattern="*.rs", path="src/bin")).output == "src/bin/tool.rs"
    assert (await find(tree, pattern="src/*.rs")).output == "src/lib.rs\nsrc/main.rs"


async def test_overflow_notice(engine: str, tree: Path) -> None:
    result = await find(tree, pattern="*", max_results=2)
    assert result.output == (
        "Cargo.toml\na/b.rs\n… more results truncated (showing first 2; raise max_results up "
        "to 1000 or narrow the pattern/path)"
    )


async def test_errors(engine: str, tree: Path) -> None:
    outside = await find(tree, pattern="*", path="/")
    assert outside.is_error and "is outside the project sandbox" in outside.output
    assert (await find(tree, pattern="{a,b")).output.startswith("find_files: invalid glob")
    assert (await find(tree, pattern="*", path=".git")).is_error


@pytest.mark.parametrize("query", [{"pattern": "*"}, {"pattern": "*.rs", "path": "src"}])
async def test_ripgrep_and_the_fallback_agree(
    tree: Path, monkeypatch: pytest.MonkeyPatch, query: dict[str, Any]
) -> None:
    monkeypatch.delenv("RHO_RG", raising=False)
    with_rg = await find(tree, **query)
    monkeypatch.setenv("RHO_RG", "")
    assert await find(tree, **query) == with_rg
