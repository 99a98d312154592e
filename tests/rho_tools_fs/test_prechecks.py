"""What edit_file, write_file and run_command refuse before anyone is asked (`Tool.check`):
the arguments and what does not depend on a file's content, through the sandbox, saying
what the call itself would say and revealing nothing of what a file holds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.declared import DECLARATIONS, SCHEMAS
from rho_tools_fs.edit_file import edit_file
from rho_tools_fs.run_command import run_command
from rho_tools_fs.write_file import write_file

# Every case holds through directory fds and with the path-check fallback alike.
pytestmark = pytest.mark.usefixtures("backend")


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


def _replace(old: str, new: str) -> list[dict[str, Any]]:
    return [{"old_text": old, "new_text": new}]


async def test_edit_file_refuses_missing_or_malformed_arguments(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    ctx = make_ctx(tmp_path)
    cases = {
        "edit_file: missing 'edits' (an array of edit objects)": {"path": "a.txt"},
        "edit_file: 'edits' must be an array of edit objects": {"path": "a.txt", "edits": "x"},
        "edit_file: no edits provided": {"path": "a.txt", "edits": []},
        "edit_file: missing 'path' (a file path string)": {"edits": _replace("a", "b")},
        "edit_file: unknown argument(s): mode": {
            "path": "a.txt",
            "edits": _replace("one", "two"),
            "mode": 1,
        },
        "edit_file: edit 1 is not an object": {"path": "a.txt", "edits": ["one"]},
        "edit_file: edit 2 missing 'new_text'": {
            "path": "a.txt",
            "edits": [*_replace("one", "two"), {"old_text": "x"}],
        },
        "edit_file: edit 1 invalid anchor 'nope' (expected e.g. 12#ABCD)": {
            "path": "a.txt",
            "edits": [{"op": "replace", "pos": "nope", "lines": ["x"]}],
        },
    }
    for said, arguments in cases.items():
        assert await edit_file.check(arguments, ctx) == said
        assert (await edit_file.execute(arguments, ctx)).output == said  # the same words
    assert (tmp_path / "a.txt").read_text() == "one\n"


async def test_edit_file_refuses_a_file_it_could_never_edit(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / "dir").mkdir()
    (project / "escape").symlink_to(outside)
    os.mkfifo(project / "pipe")  # must be refused without blocking on the open
    ctx = make_ctx(project)
    edits = _replace("secret", "changed")
    found = {
        path: await edit_file.check({"path": path, "edits": edits}, ctx)
        for path in ("missing.txt", "dir", "pipe", ".git/config", "escape", "../outside.txt")
    }
    assert found["missing.txt"] is not None and "'missing.txt' not found" in found["missing.txt"]
    assert found["dir"] == "edit_file: 'dir' is a directory, not a regular file"
    assert found["pipe"] == "edit_file: 'pipe' is a FIFO, not a regular file"
    for path in (".git/config", "escape", "../outside.txt"):
        problem = found[path]
        assert problem is not None and problem.startswith("edit_file: "), path
        assert "secret" not in problem, path
        executed = await edit_file.execute({"path": path, "edits": edits}, ctx)
        assert executed.is_error and executed.output == problem, path
    assert outside.read_text() == "secret\n"


async def test_edit_file_says_nothing_before_approval_that_depends_on_the_files_content(
    tmp_path: Path,
) -> None:
    """Whether a text occurs, an anchor is fresh or the file is text would tell the model what
    a file holds without anyone approving: those failures wait for the edit itself."""
    (tmp_path / "key.env").write_text("TOKEN=abc123\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "empty.txt").write_text("")
    ctx = make_ctx(tmp_path)
    probes = [
        ("key.env", _replace("TOKEN=a", "x")),  # occurs
        ("key.env", _replace("TOKEN=z", "x")),  # does not
        ("key.env", [{"op": "replace", "pos": "1#ZZZZ", "lines": ["x"]}]),  # a stale anchor
        ("key.env", [{"op": "replace", "pos": "9#ZZZZ", "lines": ["x"]}]),  # out of range
        ("blob.bin", _replace("a", "b")),
        ("empty.txt", [{"op": "append", "pos": "1#ZZZZ", "lines": ["x"]}]),
    ]
    for path, edits in probes:
        assert await edit_file.check({"path": path, "edits": edits}, ctx) is None, edits
    assert (tmp_path / "key.env").read_text() == "TOKEN=abc123\n"


async def test_write_file_refuses_what_it_could_never_write(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "dir").mkdir(parents=True)
    (project / "escape").symlink_to(tmp_path)
    ctx = make_ctx(project)

    async def check(**arguments: Any) -> str | None:
        return await write_file.check(arguments, ctx)

    assert await check(path="dir", content="x") == (
        "write_file: 'dir' is a directory; give a file path"
    )
    assert await check(path="new/deep/file.txt", content="x") is None  # parents are made
    assert await check(path="dir/new.txt", content="x") is None
    for path in ("../x.txt", "/etc/passwd", "escape/x.txt", ".git/config", ".rho/config.toml"):
        problem = await check(path=path, content="x")
        executed = await write_file.execute({"path": path, "content": "x"}, ctx)
        assert problem is not None and executed.is_error and executed.output == problem, path
    unpaired = await check(path="a.txt", content="bad \ud800 text")
    assert unpaired is not None and "unpaired surrogate at character 4" in unpaired
    assert (await check(path="a.txt", content=7)) is not None  # the schema first
    assert (await check(path="a.txt")) is not None
    assert not (tmp_path / "x.txt").exists() and not (project / "new").exists()


async def test_run_command_refuses_what_it_could_never_run(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "file.txt").write_text("x")
    ctx = make_ctx(tmp_path)

    async def check(**arguments: Any) -> str | None:
        return await run_command.check(arguments, ctx)

    timeout = await check(command="ls", timeout_secs="x")
    assert timeout is not None and timeout.startswith(
        "run_command: invalid arguments: timeout_secs"
    )
    assert "Traceback" not in timeout
    assert await check(command="   ") == "run_command: command is empty"
    assert await check(command="ls", timeout_secs=0) == (
        "run_command: timeout_secs must be at least 1"
    )
    denied = await check(command="touch ran && curl http://127.0.0.1:9/")
    assert denied is not None and denied.startswith("run_command: command denied: 'curl'")
    for cwd, said in (("nowhere", "does not exist"), ("file.txt", "is not a directory")):
        problem = await check(command="ls", cwd=cwd)
        assert problem is not None and said in problem, cwd
    outside = await check(command="ls", cwd="../")
    assert outside is not None and outside.startswith("run_command: cwd '../' is refused")
    assert await check(command="ls", cwd="sub", timeout_secs=5) is None
    assert await check(command="ls", sandbox="everything") is not None
    assert not (tmp_path / "ran").exists()


async def test_the_declared_tools_check_through_their_implementations(tmp_path: Path) -> None:
    from rho_kernel.tools import declared_tools

    tools = {t.name: t for t in declared_tools(DECLARATIONS, SCHEMAS)}
    ctx = make_ctx(tmp_path)
    edit = await tools["edit_file"].check({"path": "a.txt"}, ctx)
    assert edit == "edit_file: missing 'edits' (an array of edit objects)"
    run = await tools["run_command"].check({"command": "ls", "timeout_secs": "x"}, ctx)
    assert run is not None and "timeout_secs" in run
    assert await tools["read_file"].check({"path": "a.txt", "nope": 1}, ctx) is not None
    assert await tools["read_file"].check({"path": "missing.txt"}, ctx) is None
