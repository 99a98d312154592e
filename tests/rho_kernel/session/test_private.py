"""Session files are 0600 and the folders rho creates for them 0700, whatever the umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.messages import ChatMessage
from rho_kernel.session import Session
from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.lock import lock_path_for
from rho_kernel.session.private import create_private_file, make_private_dir


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that takes nothing away, so only explicit modes keep files private."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_session_file_is_0600_and_its_new_folders_0700(
    project: Path, home: Path, open_umask: None
) -> None:
    home.mkdir(mode=0o755)
    with Session.create(project, home=home) as session:
        session.append_message(ChatMessage.system("sys"))
        session.append_message(ChatMessage.user("hi"))
        assert session.path is not None
        assert mode(session.path) == 0o600
        assert mode(lock_path_for(session.path)) == 0o600
    directory = sessions_dir(project, home)
    for folder in (home / ".rho", home / ".rho" / "sessions", directory):
        assert mode(folder) == 0o700, folder
    assert mode(home) == 0o755


def test_an_existing_rho_folder_keeps_its_mode(project: Path, home: Path, open_umask: None) -> None:
    (home / ".rho").mkdir(parents=True, mode=0o755)
    (home / ".rho").chmod(0o755)
    with Session.create(project, home=home) as session:
        session.append_message(ChatMessage.user("hi"))
    assert mode(home / ".rho") == 0o755
    assert mode(home / ".rho" / "sessions") == 0o700


def test_make_private_dir_creates_every_missing_level(tmp_path: Path, open_umask: None) -> None:
    target = tmp_path / "a" / "b" / "c"
    make_private_dir(target)
    assert [mode(tmp_path / p) for p in ("a", "a/b", "a/b/c")] == [0o700] * 3
    make_private_dir(target)  # existing: nothing to do
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        make_private_dir(tmp_path / "file" / "sub")


def test_create_private_file_refuses_existing_files_and_links(
    tmp_path: Path, open_umask: None
) -> None:
    path = tmp_path / "s.jsonl"
    with create_private_file(path) as file:
        file.write(b"x\n")
    assert mode(path) == 0o600
    with pytest.raises(FileExistsError):
        create_private_file(path)
    target = tmp_path / "target"
    target.write_text("keep")
    (tmp_path / "link.jsonl").symlink_to(target)
    with pytest.raises(FileExistsError):
        create_private_file(tmp_path / "link.jsonl")
    assert target.read_text() == "keep"
