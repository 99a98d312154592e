"""FIFOs, sockets and devices given as the `path` of list_dir, find_files and search_files, or
lying inside the searched tree: refused or skipped at once, never blocked on.

A blocked call would hang the test; pytest-timeout is only the safety net that turns such a
hang into a failure.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Tool, ToolContext
from rho_tools_fs.find_files import find_files
from rho_tools_fs.list_dir import list_dir
from rho_tools_fs.search_files import search_files

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and sockets"),
    pytest.mark.timeout(60),
]

TOOLS = {"list_dir": list_dir, "find_files": find_files, "search_files": search_files}
ARGUMENTS: dict[str, dict[str, object]] = {
    "list_dir": {},
    "find_files": {"pattern": "*"},
    "search_files": {"pattern": "needle"},
}


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("needle here\n")
    os.mkfifo(root / "pipe")
    os.mkfifo(root / "src" / "pipe.txt")  # inside the tree, with a name every glob takes
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    special = ["pipe", "sock"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        os.mknod(root / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        special.append("null")
    try:
        yield root
    finally:
        server.close()


def _run(tool: Tool, root: Path, arguments: dict[str, object]) -> tuple[bool, str]:
    ctx = ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())
    result = asyncio.run(tool.execute(arguments, ctx))
    return result.is_error, result.output


@pytest.mark.parametrize("name", sorted(TOOLS))
@pytest.mark.parametrize("target", ["pipe", "sock", "null", "src/../pipe"])
def test_a_special_file_as_path_is_refused_at_once(
    project: Path, engine: str, name: str, target: str
) -> None:
    if not (project / target).exists() and target == "null":
        pytest.skip("making a device needs root")
    is_error, output = _run(TOOLS[name], project, {**ARGUMENTS[name], "path": target})
    kind = {"pipe": "FIFO", "sock": "socket", "null": "device"}[target.rsplit("/", 1)[-1]]
    assert is_error
    assert output.startswith(f"{name}: '{target}' is a")
    assert kind in output
    assert "only a directory or a regular file can be used" in output


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_fifo_inside_the_tree_is_skipped(project: Path, engine: str, name: str) -> None:
    arguments = {**ARGUMENTS[name], "path": "src"}
    if name == "list_dir":
        arguments["recursive"] = True
    is_error, output = _run(TOOLS[name], project, arguments)
    assert not is_error
    expected = {
        "list_dir": "a.txt\npipe.txt",  # listed (it is an entry), never opened
        "find_files": "src/a.txt",
        "search_files": "src/a.txt:1: needle here",
    }
    assert output == expected[name]


def test_search_files_with_a_glob_naming_only_the_fifo(project: Path, engine: str) -> None:
    is_error, output = _run(search_files, project, {"pattern": "x*", "glob": "pipe.txt"})
    assert (is_error, output) == (False, "No matches for 'x*'")


@pytest.mark.parametrize("name", ["find_files", "search_files"])
@pytest.mark.parametrize("ignore_name", [".gitignore", ".ignore", ".rgignore"])
@pytest.mark.parametrize("how", ["fifo", "link to a fifo"])
def test_an_ignore_file_that_is_a_fifo_never_holds_the_search(
    project: Path, engine: str, name: str, ignore_name: str, how: str
) -> None:
    # ripgrep opens the ignore files it meets itself, with a blocking open: a command could
    # leave a FIFO there. The search still answers, with the project's own results.
    (project / "src" / "pipe.txt").unlink()
    (project / "src" / "ignored.txt").write_text("needle ignored\n")
    (project / ".gitignore").write_text("ignored.txt\n")
    deep = project / "src" / "deep"
    deep.mkdir()
    (deep / "b.txt").write_text("needle deep\n")
    if how == "fifo":
        os.mkfifo(deep / ignore_name)
    else:
        os.mkfifo(project / "elsewhere")
        (deep / ignore_name).symlink_to(project / "elsewhere")
    is_error, output = _run(TOOLS[name], project, {**ARGUMENTS[name], "path": "src"})
    assert not is_error
    expected = {
        "find_files": "src/a.txt\nsrc/deep/b.txt",
        "search_files": "src/a.txt:1: needle here\nsrc/deep/b.txt:1: needle deep",
    }
    assert output == expected[name]
