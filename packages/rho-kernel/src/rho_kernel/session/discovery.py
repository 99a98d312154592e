"""Where session files live, and finding them without loading their entries.

Layout: `<home>/.rho/sessions/<project_hash>/<created_at_secs>_<session_id>.jsonl`, where
`project_hash` is the first 16 lower-hex chars of the SHA-256 of the canonical project root.
Listing reads only each file's header line and counts the remaining non-blank lines.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from rho_kernel.home import state_dir
from rho_kernel.security.regular_file import open_regular
from rho_kernel.session.entries import Header, SessionError


def rho_home(home: Path | None = None) -> Path:
    """rho's per-user directory: `<home>/.rho`, home defaulting to $HOME, $USERPROFILE or /tmp."""
    return state_dir(home)


def project_hash(project_root: Path) -> str:
    """The first 16 lower-hex chars of the SHA-256 of the canonical project root path."""
    canonical = Path(project_root).resolve()
    return hashlib.sha256(os.fsencode(str(canonical))).hexdigest()[:16]


def sessions_dir(project_root: Path, home: Path | None = None) -> Path:
    """The directory holding the project's session files."""
    return rho_home(home) / "sessions" / project_hash(project_root)


@dataclass(frozen=True)
class SessionInfo:
    """What a session listing shows about one session file."""

    path: Path
    id: str
    created_at_secs: int
    cwd: str
    mtime_secs: int
    size_kb: int
    entry_count: int


def read_session_info(path: Path) -> SessionInfo | None:
    """Read a session file's header and count its entry lines, or None if the header is unreadable.

    Only the header is parsed; `entry_count` is the number of non-blank lines after it.
    """
    try:
        with open_regular(path) as file:  # a FIFO among the files: skipped, never waited on
            stat = os.fstat(file.fileno())
            header_line = b""
            for raw in file:
                if raw.strip():
                    header_line = raw
                    break
            if not header_line:
                return None
            try:
                record = json.loads(header_line)
                if not isinstance(record, dict) or record.get("type") != "Header":
                    return None
                header = Header.model_validate(record)
                header.check_supported()
            except (ValueError, SessionError):
                return None
            entry_count = sum(1 for raw in file if raw.strip())
    except OSError:
        return None
    return SessionInfo(
        path=path,
        id=header.id,
        created_at_secs=header.created_at_secs,
        cwd=header.cwd,
        mtime_secs=int(stat.st_mtime),
        size_kb=stat.st_size // 1024,
        entry_count=entry_count,
    )


def list_sessions(
    project_root: Path, home: Path | None = None, limit: int | None = None, offset: int = 0
) -> list[SessionInfo]:
    """The project's sessions, most recently modified first: at most `limit` of them, after
    the first `offset`.

    Files whose header cannot be read are skipped (and not counted by `offset`).
    """
    directory = sessions_dir(project_root, home)
    candidates: list[tuple[int, str, Path]] = []
    try:
        with os.scandir(directory) as scan:
            for item in scan:
                if not item.name.endswith(".jsonl"):
                    continue
                try:
                    if not item.is_file():
                        continue
                    mtime_ns = item.stat().st_mtime_ns
                except OSError:
                    continue
                candidates.append((mtime_ns, item.name, Path(item.path)))
    except OSError:
        return []
    candidates.sort(reverse=True)
    infos: list[SessionInfo] = []
    skipped = 0
    for _, _, path in candidates:
        if limit is not None and len(infos) >= limit:
            break
        info = read_session_info(path)
        if info is None:
            continue
        if skipped < offset:
            skipped += 1
            continue
        infos.append(info)
    return infos


class SessionNotFound(SessionError):
    """No session of the project has the id asked for, or more than one does:
    `candidates` are those that matched (empty when none did)."""

    def __init__(self, message: str, candidates: list[SessionInfo]) -> None:
        super().__init__(message)
        self.candidates = candidates


_SHOWN_CANDIDATES = 10


def find_session(project_root: Path, session_id: str, home: Path | None = None) -> SessionInfo:
    """The session of the project whose id is `session_id`, or the only one whose id starts
    with it (ids compared without regard to case). Raises `SessionNotFound` when none does,
    or when the prefix is shared (naming the candidates)."""
    wanted = session_id.strip().lower()
    infos = list_sessions(project_root, home) if wanted else []
    exact = [info for info in infos if info.id.lower() == wanted]
    matches = exact or [info for info in infos if info.id.lower().startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionNotFound(
            f"no session of this project ({project_root}) has an id starting with "
            f"{session_id!r}; listSessions shows them",
            [],
        )
    shown = "; ".join(f"{info.id} ({info.path})" for info in matches[:_SHOWN_CANDIDATES])
    more = len(matches) - _SHOWN_CANDIDATES
    raise SessionNotFound(
        f"{session_id!r} names {len(matches)} sessions of this project: {shown}"
        + (f"; and {more} more" if more > 0 else "")
        + "; give more of the id",
        matches,
    )


def find_latest_session(project_root: Path, home: Path | None = None) -> Path | None:
    """The most recently modified readable session file of the project, if any."""
    latest = list_sessions(project_root, home, limit=1)
    return latest[0].path if latest else None


__all__ = [
    "SessionInfo",
    "SessionNotFound",
    "find_latest_session",
    "find_session",
    "list_sessions",
    "project_hash",
    "read_session_info",
    "rho_home",
    "sessions_dir",
]
