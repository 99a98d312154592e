"""`Session`: the append-only entry tree, its leaf, and its JSONL file.

Every append is one `write` of one full line followed by a flush, so a crash loses at most
the line being written; `Session.open` drops such a torn last line with a warning and
truncates it away. The messages along the current path are cached and extended in O(1) by
appends at the leaf, so the cost of a turn does not grow with the session.
"""

from __future__ import annotations

import contextlib
import gc
import re
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

from rho_kernel.messages import ChatMessage
from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.entries import (
    ATTACHED,
    CURRENT_VERSION,
    CustomPayload,
    Entry,
    Header,
    LeafMovedPayload,
    MessagePayload,
    Payload,
    Resolution,
    ResolutionChange,
    SessionEndedPayload,
    SessionError,
    dump_line,
    new_id,
    parse_line,
    parse_resolution,
    render_entry,
)

CUSTOM_KIND = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+\.v[0-9]+")
"""Extension kinds: `<author>.<feature>.v<n>` (e.g. `rho.turn_error.v1`)."""

_PARSE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, RecursionError)


def _warn_to_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _brief(error: BaseException) -> str:
    """An error as one short line (pydantic's messages span several)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"


def _replay(
    path: Path, lines: list[tuple[int, int, bytes]], warn: Callable[[str], None]
) -> tuple[dict[str, Entry], str | None, int | None]:
    """Replay the lines after the header.

    Returns the entries, the id of the last Entry line, and, only when the last line was
    torn and dropped, the end offset of the last good line (0 when that is the header).
    """
    entries: dict[str, Entry] = {}
    last_entry_id: str | None = None
    good_end = 0
    for index, (number, end, raw) in enumerate(lines):
        try:
            line = parse_line(raw)
        except _PARSE_ERRORS as error:
            if index < len(lines) - 1:
                raise SessionError(
                    f"{path}: line {number}: cannot parse: {_brief(error)}"
                ) from error
            warn(
                f"{path}: line {number}: dropping unreadable last line (torn write): {_brief(error)}"
            )
            return entries, last_entry_id, good_end
        good_end = end
        if isinstance(line, Entry):
            entries.setdefault(line.id, line)
            last_entry_id = line.id
        elif isinstance(line, ResolutionChange):
            target = entries.get(line.entry)
            if target is not None:
                entries[line.entry] = target.model_copy(update={"resolution": line.resolution})
        # A repeated header or a line type from a newer rho is ignored.
    return entries, last_entry_id, None


class Session:
    """A conversation as a tree of entries with a movable leaf, optionally persisted.

    Build one with `create` (new file), `in_memory` (no disk I/O) or `open` (resume).
    Appends add a child of the leaf and make it the new leaf. A persisted session keeps its
    file open in append mode until `end` or `close`; it can also be used as a context
    manager, which closes it on exit.
    """

    def __init__(self, header: Header, path: Path | None, file: BinaryIO | None) -> None:
        """Internal: use `create`, `in_memory` or `open`."""
        self._header = header
        self._path = path
        self._file = file
        self._needs_newline = False
        self._closed = False
        self._entries: dict[str, Entry] = {}
        self._entries_view = MappingProxyType(self._entries)
        self._leaf: str | None = None
        self._path_cache: list[Entry] | None = []
        self._messages_cache: list[ChatMessage] | None = []

    # ── Construction ──────────────────────────────────────────────────────────

    @classmethod
    def create(
        cls, project_root: Path, *, home: Path | None = None, parent_session: str | None = None
    ) -> Session:
        """Start a new persisted session for `project_root`.

        The file is `sessions_dir(project_root, home)/<created_at_secs>_<id>.jsonl`; its
        header line is written at once.
        """
        root = Path(project_root).resolve()
        directory = sessions_dir(root, home)
        directory.mkdir(parents=True, exist_ok=True)
        created_at = int(time.time())
        while True:
            header = Header(
                id=new_id(),
                version=CURRENT_VERSION,
                created_at_secs=created_at,
                cwd=str(root),
                parent_session=parent_session,
            )
            path = directory / f"{created_at}_{header.id}.jsonl"
            try:
                file = path.open("xb")
            except FileExistsError:
                continue
            break
        session = cls(header, path, file)
        session._write(header.to_json())
        return session

    @classmethod
    def in_memory(cls, project_root: Path) -> Session:
        """A session with the same API that never touches the disk; `path` is None."""
        header = Header(
            id=new_id(),
            version=CURRENT_VERSION,
            created_at_secs=int(time.time()),
            cwd=str(Path(project_root).resolve()),
        )
        return cls(header, None, None)

    @classmethod
    def open(cls, path: Path, *, on_warning: Callable[[str], None] | None = None) -> Session:
        """Resume a session from its file.

        The header must be the first non-blank line; blank lines are skipped; of entries
        sharing an id the first wins; Resolution lines are replayed in file order. A line
        that cannot be parsed raises SessionError naming the file and line, except the last
        line, which is taken for a write torn by a crash: `on_warning` is called (default:
        one line on stderr), the line is dropped and the file truncated to the end of the
        last good line. The leaf is the last Entry line's id, or the `to` of a LeafMoved
        entry when that is the last Entry line.
        """
        path = Path(path)
        warn = on_warning if on_warning is not None else _warn_to_stderr
        try:
            data = path.read_bytes()
        except OSError as error:
            raise SessionError(f"cannot read session file {path}: {error}") from error

        # (line number, end offset including the newline, raw bytes) of non-blank lines.
        lines: list[tuple[int, int, bytes]] = []
        offset = 0
        for number, raw in enumerate(data.split(b"\n"), start=1):
            offset += len(raw) + 1
            if raw.strip():
                lines.append((number, min(offset, len(data)), raw))
        if not lines:
            raise SessionError(f"session file {path} has no header line")

        number, good_end, raw = lines[0]
        try:
            header = parse_line(raw)
        except _PARSE_ERRORS as error:
            raise SessionError(
                f"{path}: line {number}: unreadable session header: {_brief(error)}"
            ) from error
        if not isinstance(header, Header):
            raise SessionError(f"{path}: line {number}: the first line is not a session header")
        try:
            header.check_supported()
        except SessionError as error:
            raise SessionError(f"{path}: {error}") from None

        gc_was_enabled = gc.isenabled()
        gc.disable()  # a bulk load allocates many objects and no cycles: skip the GC passes
        try:
            entries, last_entry_id, torn_after = _replay(path, lines[1:], warn)
        finally:
            if gc_was_enabled:
                gc.enable()
        torn = torn_after is not None
        good_end = max(good_end, torn_after or 0)

        if torn:
            try:
                with path.open("r+b") as file:
                    file.truncate(good_end)
            except OSError as error:
                raise SessionError(f"cannot truncate torn session file {path}: {error}") from error
            needs_newline = False
        else:
            needs_newline = not data.endswith(b"\n")

        try:
            file = path.open("ab")
        except OSError as error:
            raise SessionError(f"cannot open session file {path} for append: {error}") from error
        session = cls(header, path, file)
        session._needs_newline = needs_newline
        session._entries.update(entries)
        leaf = last_entry_id
        if leaf is not None:
            payload = entries[leaf].payload
            if isinstance(payload, LeafMovedPayload) and payload.to in entries:
                leaf = payload.to
        session._leaf = leaf
        session._invalidate()
        return session

    # ── Properties ────────────────────────────────────────────────────────────

    @property
    def header(self) -> Header:
        """The session header."""
        return self._header

    @property
    def id(self) -> str:
        """The session id (8 lower-hex chars)."""
        return self._header.id

    @property
    def cwd(self) -> str:
        """The working directory recorded in the header."""
        return self._header.cwd

    @property
    def path(self) -> Path | None:
        """The session file, or None for an in-memory session."""
        return self._path

    @property
    def leaf_id(self) -> str | None:
        """The id of the entry the conversation continues from (None when empty)."""
        return self._leaf

    @property
    def entries(self) -> Mapping[str, Entry]:
        """Every entry of the tree by id (a read-only live view), in append order."""
        return self._entries_view

    @property
    def entry_count(self) -> int:
        """The number of entries in the tree (all branches)."""
        return len(self._entries)

    @property
    def closed(self) -> bool:
        """Whether `close` or `end` was called; a closed session accepts no more changes."""
        return self._closed

    # ── Appending ─────────────────────────────────────────────────────────────

    def append_message(self, message: ChatMessage) -> Entry:
        """Append a message as a child of the leaf; it becomes the leaf.

        The session keeps `message` itself: do not mutate it afterwards. A tool message
        without `is_error` is stored with `is_error=False`.
        """
        if message.role == "tool" and message.is_error is None:
            message = message.model_copy(update={"is_error": False})
        return self._append(Entry.new(self._leaf, MessagePayload(message=message)))

    def append_payload(self, payload: Payload, resolution: Resolution | None = None) -> Entry:
        """Append any payload as a child of the leaf (at its default resolution unless given).

        LeafMoved payloads are rejected: use `branch_to`.
        """
        if isinstance(payload, LeafMovedPayload):
            raise ValueError("LeafMoved entries are written by branch_to(); do not append them")
        return self._append(Entry.new(self._leaf, payload, resolution))

    def append_custom(self, kind: str, data: Any) -> Entry:
        """Append extension state (a Custom payload, Attached) under `kind`.

        `kind` must look like `<author>.<feature>.v<n>` (ValueError otherwise) and `data`
        must be JSON-serialisable (TypeError/ValueError otherwise).
        """
        if not CUSTOM_KIND.fullmatch(kind):
            raise ValueError(
                f"custom entry kind {kind!r} is not of the form <author>.<feature>.v<n>"
            )
        if self._file is None:
            dump_line({"data": data})  # persisted sessions check this when writing
        return self._append(Entry.new(self._leaf, CustomPayload(kind=kind, data=data)))

    def read_custom(self, kind: str) -> Any | None:
        """The data of the latest Custom entry of `kind` on the current path, or None."""
        for entry in reversed(self._current_path()):
            payload = entry.payload
            if isinstance(payload, CustomPayload) and payload.kind == kind:
                return payload.data
        return None

    def _append(self, entry: Entry) -> Entry:
        self._check_writable()
        while entry.id in self._entries:
            entry = entry.model_copy(update={"id": new_id()})
        if self._file is not None:
            self._write(entry.to_json())
        self._entries[entry.id] = entry
        if self._path_cache is not None:
            self._path_cache.append(entry)
        if self._messages_cache is not None:
            rendered = render_entry(entry)
            if rendered is not None:
                self._messages_cache.append(rendered)
        self._leaf = entry.id
        return entry

    # ── Resolution and navigation ─────────────────────────────────────────────

    def set_resolution(self, entry_id: str, resolution: Resolution) -> None:
        """Change an entry's resolution, persisted as a Resolution line.

        Raises SessionError for an unknown id.
        """
        resolution = parse_resolution(resolution)
        target = self._entries.get(entry_id)
        if target is None:
            raise SessionError(f"unknown entry id {entry_id!r}")
        self._check_writable()
        self._write(ResolutionChange(entry=entry_id, resolution=resolution).to_json())
        self._entries[entry_id] = target.model_copy(update={"resolution": resolution})
        self._invalidate()

    def branch_to(self, entry_id: str) -> None:
        """Move the leaf to an existing entry; the old branch stays in the tree.

        A LeafMoved entry (a child of the old leaf) records the move so that it survives
        a resume. Raises SessionError for an unknown id.
        """
        if entry_id not in self._entries:
            raise SessionError(f"unknown entry id {entry_id!r}")
        self._check_writable()
        if entry_id == self._leaf:
            return
        old = self._leaf
        moved = LeafMovedPayload(from_=old, to=entry_id)
        entry = Entry.new(old, moved, ATTACHED)
        while entry.id in self._entries:
            entry = entry.model_copy(update={"id": new_id()})
        if self._file is not None:
            self._write(entry.to_json())
        self._entries[entry.id] = entry
        self._leaf = entry_id
        self._invalidate()

    def clear(self) -> None:
        """Branch back to the system message at the root of the current path.

        When the path does not start with a system message the leaf becomes None, so the
        next append starts a new root (this is not recorded on disk until that append).
        """
        path = self._current_path()
        root = path[0] if path else None
        if root is not None and root.message is not None and root.message.role == "system":
            self.branch_to(root.id)
            return
        self._check_writable()
        self._leaf = None
        self._invalidate()

    def path_entries(self) -> list[Entry]:
        """The entries from the root to the leaf (a new list each call)."""
        return list(self._current_path())

    def path_messages(self) -> list[ChatMessage]:
        """The messages rendered from the current path, as sent to the model.

        Returns a new list each call, but the messages in it are the session's own: do not
        mutate them.
        """
        if self._messages_cache is None:
            self._messages_cache = [
                message
                for message in map(render_entry, self._current_path())
                if message is not None
            ]
        return list(self._messages_cache)

    def _current_path(self) -> list[Entry]:
        if self._path_cache is None:
            chain: list[Entry] = []
            seen: set[str] = set()
            current = self._leaf
            while current is not None and current not in seen:
                entry = self._entries.get(current)
                if entry is None:
                    break
                seen.add(current)
                chain.append(entry)
                current = entry.parent_id
            chain.reverse()
            self._path_cache = chain
        return self._path_cache

    def _invalidate(self) -> None:
        self._path_cache = None
        self._messages_cache = None

    # ── Lifecycle and I/O ─────────────────────────────────────────────────────

    def end(self, reason: str) -> None:
        """Append a SessionEnded entry and close the session; later calls do nothing."""
        if self._closed:
            return
        self._append(Entry.new(self._leaf, SessionEndedPayload(reason=reason)))
        self.close()

    def close(self) -> None:
        """Close the file (without a SessionEnded entry); later changes raise SessionError."""
        self._closed = True
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = str(self._path) if self._path is not None else "in memory"
        return f"<Session {self.id} ({where}), {len(self._entries)} entries, leaf={self._leaf}>"

    def _check_writable(self) -> None:
        if self._closed:
            raise SessionError(f"session {self.id} is closed")

    def _write(self, record: dict[str, Any]) -> None:
        """Write one line with one write and a flush (nothing for in-memory sessions).

        A failed write closes the session: whatever part of the line reached the disk is
        then the file's last line, which the next `open` drops as torn.
        """
        file = self._file
        if file is None:
            return
        data = (dump_line(record) + "\n").encode("utf-8")
        if self._needs_newline:
            data = b"\n" + data
        try:
            file.write(data)
            file.flush()
        except OSError as error:
            self.close()
            raise SessionError(f"cannot write session file {self._path}: {error}") from error
        self._needs_newline = False


__all__ = ["CUSTOM_KIND", "Session", "SessionError"]
