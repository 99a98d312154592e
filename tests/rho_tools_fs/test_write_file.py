"""write_file: bytes on disk, parents, atomic replacement, and failures leaving nothing behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult
from rho_tools_fs.write_file import write_file

# Every case holds through directory fds and with the path-check fallback alike.
pytestmark = pytest.mark.usefixtures("backend")


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def run(root: Path, **args: object) -> ToolResult:
    return await write_file.execute(dict(args), make_ctx(root))


def tree(root: Path) -> set[str]:
    """Every entry below root, relative, for "nothing was left behind" checks."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_tool_metadata() -> None:
    assert write_file.name == "write_file"
    assert write_file.risk is Risk.WRITE
    assert write_file.phase is Phase.EXECUTION
    params = write_file.parameters
    assert sorted(params["required"]) == ["content", "path"]
    for name in ("path", "content"):
        assert params["properties"][name]["type"] == "string"
        assert params["properties"][name]["description"]


# ── success ─────────────────────────────────────────────────────────────────


async def test_creates_a_new_file(tmp_path: Path) -> None:
    result = await run(tmp_path, path="hello.txt", content="hello\n")
    assert not result.is_error
    assert result.output == "wrote 6 bytes to hello.txt"
    assert (tmp_path / "hello.txt").read_bytes() == b"hello\n"


async def test_byte_count_is_utf8_length(tmp_path: Path) -> None:
    content = "héllo → 世界\n"
    result = await run(tmp_path, path="u.txt", content=content)
    data = (tmp_path / "u.txt").read_bytes()
    assert data == content.encode("utf-8")
    assert result.output == f"wrote {len(data)} bytes to u.txt"
    assert len(data) != len(content)


async def test_content_written_exactly(tmp_path: Path) -> None:
    content = "a\r\nb\rc\n\n\tno newline at end"
    await run(tmp_path, path="exact.txt", content=content)
    assert (tmp_path / "exact.txt").read_bytes() == content.encode()


async def test_empty_content(tmp_path: Path) -> None:
    result = await run(tmp_path, path="empty.txt", content="")
    assert result.output == "wrote 0 bytes to empty.txt"
    assert (tmp_path / "empty.txt").read_bytes() == b""


async def test_creates_parent_directories(tmp_path: Path) -> None:
    result = await run(tmp_path, path="a/b/c/deep.rs", content="fn f() {}\n")
    assert not result.is_error
    assert result.output == "wrote 10 bytes to a/b/c/deep.rs"
    assert (tmp_path / "a" / "b" / "c" / "deep.rs").read_text() == "fn f() {}\n"


async def test_overwrites_and_keeps_permissions(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    result = await run(tmp_path, path="run.sh", content="new\n")
    assert not result.is_error
    assert script.read_text() == "new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert tree(tmp_path) == {"run.sh"}  # no temporary file left


async def test_new_file_gets_umask_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        await run(tmp_path, path="f.txt", content="x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o644


async def test_writes_through_a_symlink_inside(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    result = await run(tmp_path, path="alias.txt", content="new")
    assert result.output == "wrote 3 bytes to real.txt"
    assert (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


async def test_absolute_path_inside_is_shown_relative(tmp_path: Path) -> None:
    result = await run(tmp_path, path=str(tmp_path / "x" / "y.txt"), content="1")
    assert result.output == "wrote 1 bytes to x/y.txt"


# ── refusals ────────────────────────────────────────────────────────────────


async def test_outside_the_sandbox(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    result = await run(project, path="../escape.txt", content="x")
    assert result.is_error
    assert "outside the project sandbox" in result.output
    assert "relative to the project root" in result.output
    assert not (tmp_path / "escape.txt").exists()


async def test_dotdot_below_a_new_directory(tmp_path: Path) -> None:
    result = await run(tmp_path, path="new/../../x.txt", content="x")
    assert result.is_error
    assert tree(tmp_path) == set()


async def test_symlinked_dir_pointing_outside(tmp_path: Path) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "out").symlink_to(outside, target_is_directory=True)
    result = await run(project, path="out/planted.txt", content="x")
    assert result.is_error
    assert "outside the project sandbox" in result.output
    assert list(outside.iterdir()) == []


async def test_dangling_symlink_pointing_outside(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "trap").symlink_to(tmp_path / "created.txt")
    result = await run(project, path="trap", content="x")
    assert result.is_error
    assert not (tmp_path / "created.txt").exists()


async def test_existing_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    result = await run(tmp_path, path="src", content="x")
    assert result.is_error
    assert result.output == "write_file: 'src' is a directory; give a file path"
    assert (tmp_path / "src").is_dir()


async def test_root_itself(tmp_path: Path) -> None:
    result = await run(tmp_path, path=".", content="x")
    assert result.is_error
    assert "is a directory" in result.output


async def test_missing_arguments(tmp_path: Path) -> None:
    result = await run(tmp_path, path="a.txt")
    assert result.is_error
    assert "content" in result.output
    assert tree(tmp_path) == set()


async def test_never_writes_into_git(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    result = await run(tmp_path, path=".git/hooks/pre-push", content="#!/bin/sh\nrm -rf /\n")
    assert result.is_error
    assert result.output == (
        "write_file: '.git/hooks/pre-push' is inside .git/, which rho never writes to "
        "(git hooks and config would run as code)"
    )
    assert tree(tmp_path) == {".git", ".git/hooks"}


async def test_never_writes_into_git_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "hooks").symlink_to(".git/hooks", target_is_directory=True)
    result = await run(tmp_path, path="hooks/pre-push", content="x")
    assert result.is_error
    assert "is inside .git/, which rho never writes to" in result.output
    assert list((tmp_path / ".git" / "hooks").iterdir()) == []


async def test_never_writes_rho_config_or_nested_git(tmp_path: Path) -> None:
    for path in (".rho/config.toml", ".RHO/config.toml", "vendor/lib/.git/config", ".git"):
        result = await run(tmp_path, path=path, content="x")
        assert result.is_error
        assert "which rho never writes to" in result.output
    assert tree(tmp_path) == set()


async def test_a_symlink_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    # The link resolves inside, so its target is what gets replaced; the link stays a link.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "real.txt").write_text("old")
    (tmp_path / "alias.txt").symlink_to("sub/real.txt")
    result = await run(tmp_path, path="alias.txt", content="new")
    assert result.output == "wrote 3 bytes to sub/real.txt"
    assert os.readlink(tmp_path / "alias.txt") == "sub/real.txt"
    assert (tmp_path / "sub" / "real.txt").read_text() == "new"


# ── failures leave nothing behind ───────────────────────────────────────────


async def test_unencodable_content_writes_nothing(tmp_path: Path) -> None:
    # A lone surrogate can arrive through JSON ("\ud800") but has no UTF-8 encoding.
    result = await run(tmp_path, path="new/dir/file.txt", content="ok \ud800 bad")
    assert result.is_error
    assert "nothing was written" in result.output
    assert tree(tmp_path) == set()


async def test_unencodable_content_keeps_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("original")
    result = await run(tmp_path, path="keep.txt", content="\udfff")
    assert result.is_error
    assert (tmp_path / "keep.txt").read_text() == "original"
    assert tree(tmp_path) == {"keep.txt"}


async def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep")
    result = await run(tmp_path, path="notes.txt/child.txt", content="x")
    assert result.is_error
    assert "failed to write 'notes.txt/child.txt'" in result.output
    assert "is a file, not a directory" in result.output
    assert tree(tmp_path) == {"notes.txt"}
    assert (tmp_path / "notes.txt").read_text() == "keep"


async def test_ancestor_is_a_file_removes_nothing_and_creates_nothing(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "file").write_text("keep")
    result = await run(tmp_path, path="a/file/b/c.txt", content="x")
    assert result.is_error
    assert tree(tmp_path) == {"a", "a/file"}


async def test_too_long_name_is_refused_before_anything_is_created(tmp_path: Path) -> None:
    long_name = "x" * 300  # longer than NAME_MAX
    result = await run(tmp_path, path=f"fresh/deeper/{long_name}", content="data")
    assert result.is_error
    assert "is longer than 255 bytes" in result.output
    assert tree(tmp_path) == set()


async def test_long_name_within_the_limit_is_written(tmp_path: Path) -> None:
    # The temporary file's name must stay within NAME_MAX too.
    name = "y" * 250
    result = await run(tmp_path, path=name, content="data")
    assert not result.is_error
    assert tree(tmp_path) == {name}


async def test_dotdot_below_created_parents_removes_them(tmp_path: Path) -> None:
    result = await run(tmp_path, path="fresh/deeper/../x.txt", content="data")
    assert result.is_error
    assert "'..' below a directory that does not exist" in result.output
    assert tree(tmp_path) == set()


@contextlib.contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Make writes past `limit` bytes fail with EFBIG in this process (SIGXFSZ ignored)."""
    previous_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, previous[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, previous)
        signal.signal(signal.SIGXFSZ, previous_handler)


async def test_failed_content_write_removes_created_parents(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    with file_size_limit(2):
        result = await write_file.execute({"path": "fresh/deeper/f.txt", "content": "data"}, ctx)
    assert result.is_error
    assert result.output.startswith("write_file: failed to write 'fresh/deeper/f.txt': ")
    assert tree(tmp_path) == set()


async def test_failed_content_write_keeps_the_old_file(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("old")
    ctx = make_ctx(tmp_path)
    with file_size_limit(2):
        result = await write_file.execute({"path": "keep.txt", "content": "much longer"}, ctx)
    assert result.is_error
    assert (tmp_path / "keep.txt").read_text() == "old"
    assert tree(tmp_path) == {"keep.txt"}


async def test_a_write_finished_after_an_abort_is_reported_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import rho_tools_fs.write_file as module

    started, release = threading.Event(), threading.Event()
    real_write = module._write

    def slow_write(*args: object) -> Path:
        started.set()
        release.wait(60)
        return real_write(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "_write", slow_write)
    ctx = make_ctx(tmp_path)
    token = CancelToken()
    ctx.cancel = token
    task = asyncio.ensure_future(
        token.run(write_file.execute({"path": "a.txt", "content": "x"}, ctx))
    )
    await asyncio.to_thread(started.wait, 60)
    token.cancel()
    for _ in range(20):  # let the cancel be seen while the write still runs
        await asyncio.sleep(0)
    assert not task.done()
    release.set()
    result = await task
    assert result == ToolResult("wrote 1 bytes to a.txt")
    assert (tmp_path / "a.txt").read_text() == "x"
