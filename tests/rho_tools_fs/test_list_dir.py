"""list_dir: hidden entries shown, ignore rules honoured, .git never entered, sandboxed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext, ToolResult
from rho_tools_fs import list_dir as list_dir_module
from rho_tools_fs.list_dir import list_dir

pytestmark = pytest.mark.usefixtures("backend")


async def listing(root: Path, **args: Any) -> ToolResult:
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    return await list_dir.execute(dict(args), ctx)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    for name in ["src/main.rs", "src/gen/x.rs", ".env.example", ".git/HEAD", "out/a", "z.log"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    (root / ".gitignore").write_text("out/\n*.log\n")
    (root / "src/.gitignore").write_text("gen/\n")
    return root


async def test_one_level_shows_hidden_entries_and_git(tree: Path) -> None:
    result = await listing(tree)
    assert result.output == ".env.example\n.git/\n.gitignore\nsrc/"
    assert list_dir.outline({}, result) == "list_dir .: 4 entries"


async def test_recursive_listing_is_depth_first_and_skips_git(tree: Path) -> None:
    result = await listing(tree, recursive=True)
    assert result.output == ".env.example\n.gitignore\nsrc/\nsrc/.gitignore\nsrc/main.rs"
    assert (await listing(tree, path="src", recursive=True)).output == ".gitignore\nmain.rs"


async def test_empty_and_not_a_directory(tree: Path) -> None:
    (tree / "empty").mkdir()
    assert (await listing(tree, path="empty")).output == "(empty directory)"
    result = await listing(tree, path="src/main.rs")
    assert result.is_error and result.output == "list_dir: `src/main.rs` is not a directory"


async def test_symlinks_are_listed_not_followed(tmp_path: Path, tree: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "secret").mkdir(parents=True)
    (tree / "src" / "escape").symlink_to(outside)
    result = await listing(tree, path="src", recursive=True)
    assert result.output == ".gitignore\nescape\nmain.rs"
    refused = await listing(tree, path="src/escape")
    assert refused.is_error and "outside the project sandbox" in refused.output


async def test_unreadable_directories_are_counted(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "src" / "locked").mkdir()
    real_open_dir = SandboxRoot.open_dir

    def open_dir(self: SandboxRoot, path: str | Path) -> Any:
        if str(path).endswith("locked"):  # what a directory without read permission gives
            raise PermissionError(13, "Permission denied")
        return real_open_dir(self, path)

    monkeypatch.setattr(SandboxRoot, "open_dir", open_dir)
    result = await listing(tree, path="src", recursive=True)
    assert result.output.endswith("\n\n(1 entries could not be read)")
    assert "locked/" in result.output


async def test_a_long_listing_stops_with_a_notice(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(list_dir_module, "MAX_ENTRIES", 2)
    result = await listing(tree, recursive=True)
    assert result.output.startswith(".env.example\n.gitignore\n\n(listing stopped after 2 entries")
