"""Which saved session a client's `sessionId` names, before anything is opened.

`session/load`, `session/resume` and `session/fork` take a `sessionId` from the client. It
names a session only as `session/list` knows it: the id of one of the project's sessions, or
the path of one of their files (absolute, or relative to the request's `cwd`), links
followed. A session file that is a link leading out of the project's session directory is
not one of them. Anything else (another file, a FIFO, `../..`, a prefix of an id) is
refused here, and no file is opened for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: The longest `sessionId` quoted in a message.
MAX_SHOWN = 120


class UnknownSession(ValueError):
    """The `sessionId` names none of the project's sessions (the text says why)."""


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A session of the project: its id and its file (every link followed)."""

    id: str
    path: Path


def _shown(reference: str) -> str:
    text = reference if len(reference) <= MAX_SHOWN else reference[: MAX_SHOWN - 1] + "…"
    return repr(text)


def _real(path: str | Path) -> str | None:
    """`path` with every link followed (None when it cannot be resolved)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a NUL byte, a loop of links
        return None


def project_sessions(root: Path, home: Path | None) -> list[StoredSession]:
    """The sessions of the project at `root`, as `session/list` knows them, whose files
    lie in the session directory (a link leading out of it is left out)."""
    from rho_kernel.session import list_sessions

    found = []
    for info in list_sessions(root, home=home):
        real = _real(info.path)
        if real is not None and os.path.dirname(real) == _real(info.path.parent):
            found.append(StoredSession(info.id, Path(real)))
    return found


def stored_session(cwd: str, reference: object, home: Path | None) -> StoredSession:
    """The session of the project at `cwd` that `reference` names: its id, or its file's
    path. Raises `UnknownSession` saying why otherwise."""
    if not isinstance(reference, str) or not reference.strip():
        raise UnknownSession("sessionId: give a session's id (session/list shows them)")
    root = Path(cwd)
    if not root.is_absolute() or not root.is_dir():
        raise UnknownSession(f"cwd: {_shown(cwd)} is not a directory given by its full path")
    sessions = project_sessions(root, home)
    for session in sessions:
        if session.id == reference:
            return session
    wanted = _real(root / os.path.expanduser(reference))
    for session in sessions:
        if wanted is not None and str(session.path) == wanted:
            return session
    raise UnknownSession(
        f"sessionId: {_shown(reference)} is neither the id of a session of this project "
        f"({root}) nor the file of one in rho's session directory; session/list shows them"
    )


__all__ = ["MAX_SHOWN", "StoredSession", "UnknownSession", "project_sessions", "stored_session"]
