"""One-line outlines of read_file, write_file and edit_file calls."""

from __future__ import annotations

from pathlib import Path

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext, ToolResult
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.read_file import read_file
from rho_tools_fs.write_file import write_file


def ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def call(tool: object, root: Path, args: dict) -> tuple[ToolResult, str | None]:
    result = await tool.execute(args, ctx(root))  # type: ignore[attr-defined]
    return result, tool.outline(args, result)  # type: ignore[attr-defined]


async def test_read_file_outline_counts_lines(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "one.txt").write_text("x")
    (tmp_path / "empty.txt").write_text("")
    assert (await call(read_file, tmp_path, {"path": "a.txt"}))[1] == "read_file a.txt: 3 lines"
    raw = {"path": "a.txt", "hashline": False}
    assert (await call(read_file, tmp_path, raw))[1] == "read_file a.txt: 3 lines"
    assert (await call(read_file, tmp_path, {"path": "one.txt"}))[1] == "read_file one.txt: 1 line"
    assert (await call(read_file, tmp_path, {"path": "empty.txt"}))[1] == (
        "read_file empty.txt: 0 lines"
    )


async def test_read_file_outline_of_an_error(tmp_path: Path) -> None:
    outline = (await call(read_file, tmp_path, {"path": "nope"}))[1]
    assert outline is not None and outline.startswith("read_file nope: failed — read_file: ")
    assert len(outline) <= 200


async def test_write_file_outline(tmp_path: Path) -> None:
    args = {"path": "n.md", "content": "hello"}
    assert (await call(write_file, tmp_path, args))[1] == "write_file n.md: 5 bytes"
    args = {"path": ".git/x", "content": "hello"}
    assert (await call(write_file, tmp_path, args))[1].startswith("write_file .git/x: failed — ")


async def test_edit_file_outline(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    args = {"path": "a.py", "edits": [{"old_text": "y = 2", "new_text": "y = 2\nz = 3"}]}
    assert (await call(edit_file, tmp_path, args))[1] == "edit_file a.py: 1 edit, 2 → 3 lines"
    args = {"path": "a.py", "edits": [{"old_text": "nope", "new_text": ""}]}
    outline = (await call(edit_file, tmp_path, args))[1]
    assert outline == 'edit_file a.py: failed — edit_file: old_text not found in `a.py`: "nope"'


async def test_outlines_stay_short_for_long_paths(tmp_path: Path) -> None:
    name = "d" * 150
    outline = (await call(read_file, tmp_path, {"path": name}))[1]
    assert outline is not None and len(outline) <= 200
