"""File names with control characters cannot forge lines in what the file tools print.

A repository can hold a file named `a.txt\\nsecret/` (or with `\\r`, a tab, ESC, DEL, a
Unicode line separator): every tool shows it escaped, on one line, so each output line is
exactly one entry, match or message.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from rho_kernel import escape_controls
from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Tool, ToolContext
from rho_tools_fs.batch_read import batch_read
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.find_files import find_files
from rho_tools_fs.list_dir import list_dir
from rho_tools_fs.read_file import read_file
from rho_tools_fs.search_files import search_files
from rho_tools_fs.write_file import write_file

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="such names are POSIX only")

NAMES = {
    "newline": "a\nb.txt",
    "forged": "real.txt\nforged.key",  # looks like a second listing line
    "cr": "c\rd.txt",
    "tab": "e\tf.txt",
    "esc": "g\x1b[2Jh.txt",
    "del": "i\x7fj.txt",
    "separator": "k\u2028l.txt",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    for name in NAMES.values():
        (root / "src" / name).write_text("needle\n")
    return root


def _run(tool: Tool, root: Path, arguments: dict[str, Any]) -> tuple[bool, str]:
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    result = asyncio.run(tool.execute(arguments, ctx))
    return result.is_error, result.output


def _expected(prefix: str) -> list[str]:
    return sorted(prefix + escape_controls(name) for name in NAMES.values())


def _assert_clean(output: str) -> None:
    for char in "\r\t\x1b\x7f\u2028":
        assert char not in output


def test_list_dir_shows_one_escaped_line_per_entry(project: Path) -> None:
    is_error, output = _run(list_dir, project, {"path": "src"})
    assert not is_error
    _assert_clean(output)
    assert sorted(output.split("\n")) == _expected("")
    is_error, output = _run(list_dir, project, {"recursive": True})
    assert sorted(output.split("\n")) == sorted(["src/", *_expected("src/")])


def test_find_files_shows_one_escaped_line_per_file(project: Path, engine: str) -> None:
    is_error, output = _run(find_files, project, {"pattern": "*"})
    assert not is_error
    _assert_clean(output)
    assert sorted(output.split("\n")) == _expected("src/")
    assert "forged.key" not in output.split("\n")


def test_search_files_escapes_the_paths_of_matches(project: Path, engine: str) -> None:
    is_error, output = _run(search_files, project, {"pattern": "needle"})
    assert not is_error
    _assert_clean(output)
    assert sorted(output.split("\n")) == sorted(f"{p}:1: needle" for p in _expected("src/"))


@pytest.mark.parametrize("key", sorted(NAMES))
def test_write_file_read_file_edit_file_and_batch_read_escape_the_path(
    project: Path, key: str
) -> None:
    path = f"new/{NAMES[key]}"
    shown = escape_controls(path)
    assert _run(write_file, project, {"path": path, "content": "x\n"}) == (
        False,
        f"wrote 2 bytes to {shown}",
    )
    is_error, output = _run(edit_file, project, {"path": path, "edits": [
        {"old_text": "x", "new_text": "y"}]})  # fmt: skip
    assert not is_error
    assert output.split("\n")[0].endswith(shown)
    is_error, output = _run(read_file, project, {"path": f"{path}.missing"})
    assert is_error and output.startswith(f"read_file: '{shown}.missing' not found.")
    _, output = _run(batch_read, project, {"paths": [path, f"{path}.missing"]})
    assert f'<context file="{shown}">' in output
    assert f"[2] error: '{shown}.missing' not found." in output
    _assert_clean(output.split("\n", 3)[2])  # the header line


@pytest.mark.parametrize("key", sorted(NAMES))
def test_sandbox_refusals_escape_the_path(project: Path, key: str) -> None:
    path = f"../{NAMES[key]}"
    for tool, arguments in (
        (read_file, {"path": path}),
        (list_dir, {"path": path}),
        (search_files, {"pattern": "x", "path": path}),
        (write_file, {"path": path, "content": ""}),
    ):
        is_error, output = _run(tool, project, arguments)
        assert is_error
        assert escape_controls(path) in output
        assert "\n" not in output.split(". Paths are")[0]
        _assert_clean(output)
