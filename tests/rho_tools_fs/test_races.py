"""read_file and write_file while another thread swaps paths for symlinks that point outside.

A path that is a regular file (or a real directory) one moment and a symlink to a file (or a
directory) outside the project the next must never let a read return outside content or a
write land outside: the swap may make an operation fail, never escape.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext
from rho_tools_fs.read_file import read_file
from rho_tools_fs.write_file import write_file

ROUNDS = 400
SECRET = "OUTSIDE-SECRET"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    (project / "inside").mkdir(parents=True)
    outside.mkdir()
    (outside / "target").write_text(SECRET)
    return project, outside


@contextlib.contextmanager
def flipping(step: Callable[[], None]) -> Iterator[None]:
    """Run `step` over and over in a thread for the duration of the block."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                step()
            time.sleep(0)  # let the reader see this state

    # Threads take turns holding the interpreter every "switch interval" (5 ms by default):
    # a shorter one lets the swaps and the tool's steps interleave more finely, and spares
    # the tool's thread most of the 5 ms waits for its turn after each of its system calls.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


def file_flipper(path: Path, outside_file: Path, content: str) -> Callable[[], None]:
    """Swap `path` between a regular file and a symlink to `outside_file`, each atomically."""
    spare_file = path.with_name(".spare-file")
    spare_link = path.with_name(".spare-link")

    def step() -> None:
        spare_file.write_text(content)
        os.replace(spare_file, path)
        with contextlib.suppress(FileNotFoundError):
            spare_link.unlink()
        spare_link.symlink_to(outside_file)
        os.replace(spare_link, path)

    return step


def dir_flipper(path: Path, outside_dir: Path) -> Callable[[], None]:
    """Swap `path` between a real directory and a symlink to `outside_dir`, a step per call."""
    parked = path.with_name(".parked")

    def step() -> None:
        if not parked.exists():
            os.rename(path, parked)  # the real directory steps aside
            path.symlink_to(outside_dir, target_is_directory=True)
            return
        if path.is_symlink():
            path.unlink()
        elif path.is_dir():  # a write created it while it was missing
            shutil.rmtree(path)
        os.rename(parked, path)

    return step


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=CancelToken())


async def test_reads_never_return_outside_content_while_the_file_flips(
    dirs: tuple[Path, Path],
) -> None:
    project, outside = dirs
    target = project / "inside" / "target"
    target.write_text("inside")
    ctx = make_ctx(project)
    leaks = 0
    with flipping(file_flipper(target, outside / "target", "inside")):
        for _ in range(ROUNDS):
            result = await read_file.execute({"path": "inside/target", "hashline": False}, ctx)
            leaks += SECRET in result.output
    assert leaks == 0


async def test_reads_never_return_outside_content_while_a_parent_flips(
    dirs: tuple[Path, Path],
) -> None:
    project, outside = dirs
    (project / "inside" / "target").write_text("inside")
    ctx = make_ctx(project)
    leaks = 0
    with flipping(dir_flipper(project / "inside", outside)):
        for _ in range(ROUNDS):
            result = await read_file.execute({"path": "inside/target", "hashline": False}, ctx)
            leaks += SECRET in result.output
    assert leaks == 0


async def test_writes_never_land_outside_while_the_file_flips(dirs: tuple[Path, Path]) -> None:
    project, outside = dirs
    target = project / "inside" / "target"
    target.write_text("inside")
    ctx = make_ctx(project)
    with flipping(file_flipper(target, outside / "target", "inside")):
        for round_no in range(ROUNDS):
            await write_file.execute({"path": "inside/target", "content": f"w{round_no}"}, ctx)
    assert (outside / "target").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["target"]


async def test_writes_never_land_outside_while_a_parent_flips(dirs: tuple[Path, Path]) -> None:
    project, outside = dirs
    ctx = make_ctx(project)
    with flipping(dir_flipper(project / "inside", outside)):
        for round_no in range(ROUNDS):
            await write_file.execute({"path": "inside/planted", "content": f"w{round_no}"}, ctx)
    assert sorted(p.name for p in outside.iterdir()) == ["target"]
    assert (outside / "target").read_text() == SECRET
