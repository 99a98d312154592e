"""A sandbox root bound to an editor: text files read and written through it, only after
every check, and never when the path no longer leads where the check went."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from rho_kernel.security import (
    ProtectedPathError,
    SandboxError,
    SandboxRoot,
    WriteFailed,
    replace_atomically,
)


class Editor:
    """An editor holding `buffers` (path → text); `during` runs inside each call, as a
    process racing rho would; `takes_writes` False leaves writes to the disk."""

    def __init__(self, takes_writes: bool = True) -> None:
        self.buffers: dict[Path, str] = {}
        self.writes: list[tuple[Path, str]] = []
        self.takes_writes = takes_writes
        self.during: Callable[[], None] = lambda: None

    def read_text(self, path: Path) -> str | None:
        self.during()
        return self.buffers.get(path)

    def write_text(self, path: Path, text: str) -> bool:
        self.during()
        if not self.takes_writes:
            return False
        self.writes.append((path, text))
        return True


@pytest.fixture
def bound(tmp_path: Path) -> tuple[SandboxRoot, Editor]:
    project = tmp_path / "project"
    (project / "dir").mkdir(parents=True)
    (project / "dir" / "a.txt").write_text("disk\n")
    root = SandboxRoot(project, state_dir=tmp_path / "state")
    root.editor = editor = Editor()
    return root, editor


def test_a_text_file_reads_as_the_editors_buffer_and_the_disk_when_it_has_none(
    bound: tuple[SandboxRoot, Editor],
) -> None:
    root, editor = bound
    with root.open_read("dir/a.txt") as handle:
        assert handle.read() == b"disk\n"
    editor.buffers[root.path / "dir" / "a.txt"] = "unsaved ü\n"
    with root.open_read("dir/a.txt") as handle:
        assert handle.read() == "unsaved ü\n".encode()
        assert handle.name == str(root.path / "dir" / "a.txt")
        assert os.fstat(handle.fileno()).st_size == 5  # the disk file's identity and size


def test_a_binary_file_is_read_from_the_disk(bound: tuple[SandboxRoot, Editor]) -> None:
    root, editor = bound
    (root.path / "b.bin").write_bytes(b"\0\1\2")
    editor.buffers[root.path / "b.bin"] = "text"
    with root.open_read("b.bin") as handle:
        assert handle.read() == b"\0\1\2"


def test_a_directory_swapped_for_a_link_during_the_editors_read_is_refused(
    bound: tuple[SandboxRoot, Editor], tmp_path: Path
) -> None:
    root, editor = bound
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("secret\n")
    editor.buffers[root.path / "dir" / "a.txt"] = "buffer\n"

    def swap() -> None:
        os.rename(root.path / "dir", root.path / "moved")
        os.symlink(outside, root.path / "dir")

    editor.during = swap
    with pytest.raises(SandboxError, match="moved or replaced"):
        root.open_read("dir/a.txt")


def test_a_write_goes_to_the_editor_only_after_the_checks(
    bound: tuple[SandboxRoot, Editor],
) -> None:
    root, editor = bound
    with root.write_parent("dir/a.txt") as target:
        replace_atomically(target, b"new\n")
    assert editor.writes == [(root.path / "dir" / "a.txt", "new\n")]
    assert (root.path / "dir" / "a.txt").read_text() == "disk\n"
    with pytest.raises(ProtectedPathError):
        root.write_parent(".git/config", make_parents=True)
    assert len(editor.writes) == 1


def test_what_the_editor_cannot_take_is_written_on_disk(
    bound: tuple[SandboxRoot, Editor],
) -> None:
    root, editor = bound
    with root.write_parent("dir/a.txt") as target:
        replace_atomically(target, b"\xff\xfe not UTF-8")
    assert (root.path / "dir" / "a.txt").read_bytes() == b"\xff\xfe not UTF-8"
    editor.takes_writes = False
    with root.write_parent("dir/a.txt") as target:
        replace_atomically(target, b"plain\n")
    assert (root.path / "dir" / "a.txt").read_text() == "plain\n"
    assert editor.writes == []


def test_a_directory_swapped_for_a_link_before_the_editors_write_is_refused(
    bound: tuple[SandboxRoot, Editor], tmp_path: Path
) -> None:
    root, editor = bound
    outside = tmp_path / "outside"
    outside.mkdir()

    def swap() -> None:
        os.rename(root.path / "dir", root.path / "moved")
        os.symlink(outside, root.path / "dir")

    with (
        root.write_parent("dir/a.txt") as target,
        pytest.raises(WriteFailed, match="nothing was written"),
    ):
        replace_atomically(target, b"new\n", before_replace=swap)
    assert editor.writes == []
    assert list(outside.iterdir()) == []


def test_an_editor_failure_is_a_failed_write(bound: tuple[SandboxRoot, Editor]) -> None:
    root, editor = bound

    def refuse() -> None:
        raise OSError(5, "The editor refused it: read-only buffer")

    editor.during = refuse
    with (
        root.write_parent("dir/a.txt") as target,
        pytest.raises(WriteFailed, match="read-only buffer"),
    ):
        replace_atomically(target, b"new\n")
    assert (root.path / "dir" / "a.txt").read_text() == "disk\n"
