"""Which saved session a client's `sessionId` names: only the project's own, by id or by
its file in rho's session directory; nothing else is opened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_acp.stored import UnknownSession, stored_session
from rho_kernel import ChatMessage
from rho_kernel.session import Session


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, Path, Session]:
    """A project, a home and one saved session of the project (closed)."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    session = Session.create(project, home=home)
    session.append_message(ChatMessage.system("s"))
    session.append_message(ChatMessage.user("hi"))
    session.close()
    return project, home, session


def test_an_id_or_the_files_path_names_the_session(saved: tuple[Path, Path, Session]) -> None:
    project, home, session = saved
    assert session.path is not None
    by_id = stored_session(str(project), session.id, home)
    assert (by_id.id, by_id.path) == (session.id, session.path.resolve())
    by_path = stored_session(str(project), str(session.path), home)
    relative = stored_session(str(project), os.path.relpath(session.path, project), home)
    assert by_path == relative == by_id


@pytest.mark.parametrize(
    "reference",
    ["/etc/passwd", "/proc/self/environ", "../../x", "/dev/zero", "", " ", "a\0b"],
)
def test_anything_else_is_refused_saying_so(
    saved: tuple[Path, Path, Session], reference: str
) -> None:
    project, home, _ = saved
    with pytest.raises(UnknownSession) as refused:
        stored_session(str(project), reference, home)
    assert "sessionId:" in str(refused.value)


def test_a_prefix_a_link_leading_out_and_a_fifo_in_the_directory_are_refused(
    saved: tuple[Path, Path, Session], tmp_path: Path
) -> None:
    project, home, session = saved
    assert session.path is not None
    directory = session.path.parent
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(session.path.read_bytes())
    (directory / "1_link.jsonl").symlink_to(outside)
    os.mkfifo(directory / "2_fifo.jsonl")
    for reference in (
        session.id[:4],
        str(directory / "1_link.jsonl"),
        str(outside),
        str(directory / "2_fifo.jsonl"),
        str(directory),
    ):
        with pytest.raises(UnknownSession, match="is neither the id of a session"):
            stored_session(str(project), reference, home)


def test_another_projects_session_is_not_this_ones(saved: tuple[Path, Path, Session]) -> None:
    project, home, session = saved
    other = project.parent / "other"
    other.mkdir()
    with pytest.raises(UnknownSession):
        stored_session(str(other), session.id, home)
    assert session.path is not None
    with pytest.raises(UnknownSession):
        stored_session(str(other), str(session.path), home)


def test_a_cwd_that_is_not_a_directory_is_said(saved: tuple[Path, Path, Session]) -> None:
    _, home, session = saved
    with pytest.raises(UnknownSession, match="cwd: 'relative' is not a directory"):
        stored_session("relative", session.id, home)
