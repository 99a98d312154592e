"""`Session`: the append-only entry tree, its leaf, and its JSONL file.

Every append is one `write` of one full line followed by a flush, so a crash loses at most
the line being written; `Session.open` skips such an unfinished last line, and any line it
cannot read, with one warning, and never changes a complete line of the file. The
unfinished last line is moved to a side file before the next line is written
(`rho_kernel.session.torn`). A new session
writes nothing until its first entry that is not the system message. One process at a time
writes a session file: an open session holds its lock (see `rho_kernel.session.lock`). The
messages along the current path are cached and extended in O(1) by appends at the leaf, so
the cost of a turn does not grow with the session.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, BinaryIO

from rho_kernel import diagnostics
from rho_kernel.messages import ChatMessage
from rho_kernel.security.regular_file import open_append, open_regular
from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.entries import (
    ATTACHED,
    CURRENT_VERSION,
    BranchSummaryPayload,
    CompactionSummary,
    CustomPayload,
    Entry,
    Header,
    LabelPayload,
    LeafMovedPayload,
    MessagePayload,
    Payload,
    Resolution,
    ResolutionChange,
    SessionEndedPayload,
    SessionError,
    dump_line,
    new_id,
    parse_resolution,
    render_entry,
)
from rho_kernel.session.lock import SessionLock, SessionLocked
from rho_kernel.session.private import create_private_file, make_private_dir

if TYPE_CHECKING:
    from rho_kernel.session.torn import TornTail

CUSTOM_KIND = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+\.v[0-9]+")
"""Extension kinds: `<author>.<feature>.v<n>` (e.g. `rho.turn_error.v1`)."""

CANCELLED_TOOL_CALL = "Tool call cancelled."
"""The result recorded for a tool call that never got one (see `close_open_tool_calls`)."""

_FREEZE_AT = 2000  # entries in a loaded session worth keeping out of the collector's scans


class Session:
    """A conversation as a tree of entries with a movable leaf, optionally persisted.

    Build one with `create` (new file), `in_memory` (no disk I/O) or `open` (resume).
    Appends add a child of the leaf and make it the new leaf. A persisted session holds an
    exclusive lock on its file (one writer per session) and keeps the file open in append
    mode until `end` or `close`; it can also be used as a context manager, which closes it
    on exit.
    """

    def __init__(self, header: Header, path: Path | None, file: BinaryIO | None) -> None:
        """Internal: use `create`, `in_memory` or `open`."""
        self._header = header
        self._path = path
        self._file = file
        self._lock: SessionLock | None = None
        # Lines of a created session not yet on disk (None once written, and when in memory).
        self._pending: list[bytes] | None = None
        self._needs_newline = False
        self._torn: TornTail | None = None  # an unfinished last line, moved before a write
        self._closed = False
        self._entries: dict[str, Entry] = {}
        self._entries_view = MappingProxyType(self._entries)
        # Unreadable entries of the file: id -> parent id, so the path can pass them.
        self._gaps: dict[str, str | None] = {}
        self._leaf: str | None = None
        self._path_cache: list[Entry] | None = []
        self._messages_cache: list[ChatMessage] | None = []
        self._generation = 0
        self._labels: dict[str, str] = {}
        self._labels_view = MappingProxyType(self._labels)

    # ── Construction ──────────────────────────────────────────────────────────

    @classmethod
    def create(
        cls,
        project_root: Path,
        *,
        home: Path | None = None,
        parent_session: str | None = None,
        identity: tuple[int, str] | None = None,
    ) -> Session:
        """Start a new persisted session for `project_root`.

        The path `sessions_dir(project_root, home)/<created_at_secs>_<id>.jsonl` is decided
        and its missing folders are created (0700) now, so an unusable home fails here; but
        the file is written only with the first entry that is not a system message: then
        the file (0600) with its header and the entries held so far appear at once, and the
        session's lock is taken. A session that never gets such an entry leaves no file.
        Raises SessionError when the folders cannot be created. `identity`: the creation
        time and id to use (a front end announced the file already), unless a file of that
        name exists.
        """
        root = Path(project_root).resolve()
        return cls._create_in(sessions_dir(root, home), str(root), parent_session, identity)

    @classmethod
    def _create_in(
        cls,
        directory: Path,
        cwd: str,
        parent_session: str | None,
        identity: tuple[int, str] | None = None,
    ) -> Session:
        """`create`, in `directory`, with `cwd` as the header's working directory."""
        try:
            make_private_dir(directory)
        except OSError as error:
            raise SessionError(f"cannot create session folder {directory}: {error}") from error
        created_at, wanted = identity if identity is not None else (int(time.time()), None)
        while True:
            header = Header.model_construct(
                id=wanted or new_id(),
                version=CURRENT_VERSION,
                created_at_secs=created_at,
                cwd=cwd,
                parent_session=parent_session,
            )
            path = directory / f"{created_at}_{header.id}.jsonl"
            if not os.path.lexists(path):
                break
            wanted = None
        session = cls(header, path, None)
        session._pending = []
        return session

    @classmethod
    def in_memory(cls, project_root: Path) -> Session:
        """A session with the same API that never touches the disk; `path` is None."""
        header = Header.model_construct(
            id=new_id(),
            version=CURRENT_VERSION,
            created_at_secs=int(time.time()),
            cwd=str(Path(project_root).resolve()),
        )
        return cls(header, None, None)

    @classmethod
    def open(cls, path: Path, *, on_warning: Callable[[str], None] | None = None) -> Session:
        """Resume a session from its file, taking its lock (SessionLocked when another
        process has it open).

        The header must be the first non-blank line; blank lines are skipped; of lines
        sharing an id the first is the entry (a later one is ignored and does not move the
        leaf); Resolution lines are replayed in file order. Lines this version cannot read
        are skipped, cycles of parents are cut and entries whose parent is missing continue
        from the leaf at the time they were written (see `rho_kernel.session.loading`); all
        of it is reported in one call of `on_warning` (default: one `rho: warning:` line on
        stderr) naming the file, how many lines were skipped and what is wrong with the
        first; no complete line of the file is ever changed. An unfinished last line (a
        write torn by a crash, not complete JSON) is skipped the same way, and moved to a
        side file before the next line is written (`rho_kernel.session.torn`).
        The leaf is the last Entry line's id, or the `to` of a LeafMoved entry when that is
        the last Entry line.
        """
        from rho_kernel.session.loading import first_line, parse_header

        path = Path(path)
        try:
            with open_regular(path) as reader:
                parse_header(path, first_line(reader))  # before locking: is it a session?
                lock = SessionLock.acquire(path)
                try:
                    reader.seek(0)
                    data = reader.read()
                except BaseException:
                    lock.release()
                    raise
        except OSError as error:
            raise SessionError(f"cannot read session file {path}: {error}") from error
        try:
            session, warning = cls._load(path, data)
        except BaseException:
            lock.release()
            raise
        session._lock = lock
        if warning is not None:
            (on_warning or diagnostics.warn)(warning)
        return session

    @classmethod
    def _load(cls, path: Path, data: bytes) -> tuple[Session, str | None]:
        # Reading a file is all these are for: a new session never loads them.
        from rho_kernel.session.estimates import keep_estimates
        from rho_kernel.session.loading import load_warning, parse_header, replay, split_lines
        from rho_kernel.session.torn import torn_tail

        lines = split_lines(data)
        header = parse_header(path, lines[0] if lines else None)
        gc_was_enabled = gc.isenabled()
        gc.disable()  # a bulk load allocates many objects and no cycles: skip the GC passes
        try:
            replayed = replay(lines[1:])
        finally:
            if gc_was_enabled:
                gc.enable()
        if len(replayed.entries) >= _FREEZE_AT:
            # The entries live as long as the session and hold no cycles: moved out of the
            # collector's way, they are not rescanned by every later full collection
            # (tenths of a second each on a long session).
            gc.freeze()
        try:
            file = open_append(path)  # swapped for a FIFO since it was read: refused
        except OSError as error:
            raise SessionError(f"cannot open session file {path} for append: {error}") from error
        session = cls(header, path, file)
        session._torn = torn_tail(data)
        session._needs_newline = bool(data) and not data.endswith(b"\n") and session._torn is None
        session._entries.update(replayed.entries)
        for entry in replayed.entries.values():
            if type(entry.payload) is LabelPayload:
                session._note_label(entry.payload)
        session._gaps = replayed.gaps
        session._leaf = replayed.leaf()
        session._invalidate()
        keep_estimates(session, replayed.estimates)
        return session, load_warning(path, replayed)

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
        """The id of the entry the conversation continues from (None when empty).

        After `open` this can be the id of an entry this version could not read (the last
        line of the file); it is then not in `entries`, and new entries still attach to it.
        """
        return self._leaf

    @property
    def entries(self) -> Mapping[str, Entry]:
        """Every entry of the tree by id (a read-only live view), in append order."""
        return self._entries_view

    @property
    def path_generation(self) -> int:
        """A counter that changes whenever the current path changes other than by appends at
        the leaf (a branch, a resolution change, a clear): while it stays the same, the path
        only grows at its end."""
        return self._generation

    @property
    def entry_count(self) -> int:
        """The number of entries in the tree (all branches)."""
        return len(self._entries)

    @property
    def labels(self) -> Mapping[str, str]:
        """The label of every labelled entry by id (a read-only live view): the latest Label
        entry for a target wins, and one with no label removes it."""
        return self._labels_view

    @property
    def written(self) -> bool:
        """Whether the session's file exists: False in memory and before `create`'s first entry."""
        return self._path is not None and self._pending is None

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
        return self._append(Entry.new(self._leaf, _message_payload(message)))

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
        if self._path is None:
            dump_line({"data": data})  # persisted sessions check this when writing
        # Both fields are checked above (building a validator for them costs a start-up's
        # worth of time, on the first prompt of every session).
        payload = CustomPayload.model_construct(kind=kind, data=data)
        return self._append(Entry.new(self._leaf, payload))

    def read_custom(self, kind: str) -> Any | None:
        """The data of the latest Custom entry of `kind` on the current path, or None."""
        for entry in reversed(self._current_path()):
            payload = entry.payload
            if isinstance(payload, CustomPayload) and payload.kind == kind:
                return payload.data
        return None

    def close_open_tool_calls(self, text: str = CANCELLED_TOOL_CALL) -> int:
        """Give every tool call of the last assistant message on the current path that has no
        result a failed tool result saying `text`; returns how many were added.

        A process killed while a tool call waited (for approval, say) leaves the call without
        a result, and strict providers reject a conversation with such a call. Called when a
        session is resumed, before anything else is appended, and by `branch_to` and `fork`.
        """
        answered: set[str] = set()
        for entry in reversed(self._current_path()):
            message = entry.message
            if message is None:
                continue
            if message.role == "tool":
                if message.tool_call_id is not None:
                    answered.add(message.tool_call_id)
                continue
            if message.role != "assistant":
                continue
            added = 0
            for call in message.tool_calls or ():
                if call.id not in answered:
                    answered.add(call.id)
                    self.append_message(ChatMessage.tool_result(call.id, text, True))
                    added += 1
            return added
        return 0

    def _append(self, entry: Entry) -> Entry:
        self._check_writable()
        while entry.id in self._entries or entry.id in self._gaps:
            entry = entry.model_copy(update={"id": new_id()})
        message = entry.message
        self._write(entry.to_json(), deferrable=message is not None and message.role == "system")
        self._entries[entry.id] = entry
        if type(entry.payload) is LabelPayload:
            self._note_label(entry.payload)
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

    def branch_to(self, entry_id: str) -> int:
        """Move the leaf to an existing entry; the old branch stays in the tree.

        A LeafMoved entry (a child of the old leaf) records the move so that it survives
        a resume. When the new path ends inside a group of tool calls and results (on an
        assistant message with tool calls, or on one of its results while others have
        none), every call without a result gets a failed result saying
        `CANCELLED_TOOL_CALL`, as on resume (`close_open_tool_calls`): the last of them is
        the leaf, and the next request is valid for strict providers. Returns how many
        results were added. Raises SessionError for an unknown id.
        """
        if entry_id not in self._entries:
            raise SessionError(f"unknown entry id {entry_id!r}")
        self._check_writable()
        if entry_id != self._leaf:
            old = self._leaf
            moved = LeafMovedPayload(from_=old, to=entry_id)
            entry = Entry.new(old, moved, ATTACHED)
            while entry.id in self._entries or entry.id in self._gaps:
                entry = entry.model_copy(update={"id": new_id()})
            self._write(entry.to_json())
            self._entries[entry.id] = entry
            self._leaf = entry_id
            self._invalidate()
        return self.close_open_tool_calls()

    def set_label(self, entry_id: str, label: str | None) -> Entry:
        """Label an entry (None or blank removes its label), recorded as a Label entry
        appended at the leaf. Raises SessionError for an unknown id."""
        if entry_id not in self._entries:
            raise SessionError(f"unknown entry id {entry_id!r}")
        text = label.strip() if label is not None else ""
        return self._append(
            Entry.new(self._leaf, LabelPayload(target_id=entry_id, label=text or None))
        )

    def tree_parent(self, entry: Entry) -> str | None:
        """The entry's parent as the tree shows it: unreadable entries in between are
        passed over, and a parent nothing is known of makes the entry a root."""
        parent = entry.parent_id
        seen: set[str] = set()
        while parent is not None and parent not in self._entries and parent not in seen:
            seen.add(parent)
            if parent not in self._gaps:
                return None
            parent = self._gaps[parent]
        return parent if parent in self._entries else None

    def abandoned_by(self, entry_id: str) -> list[Entry]:
        """The entries of the current path that are not on the path to `entry_id` (what a
        branch to it leaves behind), oldest first. Raises SessionError for an unknown id."""
        target = self._entries.get(entry_id)
        if target is None:
            raise SessionError(f"unknown entry id {entry_id!r}")
        kept: set[str] = set()
        current: str | None = entry_id
        while current is not None and current not in kept:
            kept.add(current)
            entry = self._entries.get(current)
            current = entry.parent_id if entry is not None else self._gaps.get(current)
        return [entry for entry in self._current_path() if entry.id not in kept]

    def branch_with_summary(self, entry_id: str, summary: CompactionSummary) -> Entry:
        """`branch_to(entry_id)` (which may close the calls of a group it lands in), then
        append a BranchSummary of the branch left behind (`from_id` = the old leaf) as a
        child of the new leaf; returns the summary entry, which is the new leaf."""
        if entry_id not in self._entries:
            raise SessionError(f"unknown entry id {entry_id!r}")
        old = self._leaf
        self.branch_to(entry_id)
        payload = BranchSummaryPayload(summary=summary, from_id=old or entry_id)
        return self._append(Entry.new(self._leaf, payload))

    def fork(self, entry_id: str | None = None) -> Session:
        """A new session holding the path from the root to `entry_id` (default: the leaf),
        whose header names this session as its parent: by its file's path, or by its id
        when it has no file (in memory, where the fork is in memory too, or not written
        yet).

        The entries keep their ids, timestamps and resolutions; each becomes the child of
        the one before it, so unreadable entries passed over leave no gap. When the copied
        path ends inside a group of tool calls and results, the calls without a result get
        failed results in the fork, as `branch_to` does. A persisted fork is created next to
        this session's file and written, like any new session, with its first entry that is
        not the system message. Raises SessionError for an unknown id.
        """
        if entry_id is not None and entry_id not in self._entries:
            raise SessionError(f"unknown entry id {entry_id!r}")
        chain = self._current_path() if entry_id is None else self._path_to(entry_id)
        if self._path is None:
            fork = Session.in_memory(Path(self.cwd))
            fork._header = fork._header.model_copy(update={"parent_session": self.id})
        else:
            parent_name = str(self._path) if self.written else self.id
            fork = Session._create_in(self._path.parent, self.cwd, parent_name)
        parent: str | None = None
        for entry in chain:
            fork._append(entry.model_copy(update={"parent_id": parent}))
            parent = entry.id
        fork.close_open_tool_calls()
        return fork

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

    def path_length(self) -> int:
        """The number of entries from the root to the leaf."""
        return len(self._current_path())

    def path_tail(self, start: int) -> list[Entry]:
        """The entries of the current path from position `start` on (a new list): with
        `path_generation`, what a caller that saw the first `start` entries has not seen."""
        return self._current_path()[start:]

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
            self._path_cache = self._path_to(self._leaf)
        return self._path_cache

    def _path_to(self, entry_id: str | None) -> list[Entry]:
        """The entries from the root to `entry_id`, passing over unreadable ones."""
        chain: list[Entry] = []
        seen: set[str] = set()
        current = entry_id
        while current is not None and current not in seen:
            seen.add(current)
            entry = self._entries.get(current)
            if entry is None:
                if current not in self._gaps:
                    break  # the path starts after an entry nothing is known of
                current = self._gaps[current]  # pass over an unreadable entry
                continue
            chain.append(entry)
            current = entry.parent_id
        chain.reverse()
        return chain

    def _note_label(self, payload: LabelPayload) -> None:
        if payload.label is None or not payload.label.strip():
            self._labels.pop(payload.target_id, None)
        else:
            self._labels[payload.target_id] = payload.label

    def _invalidate(self) -> None:
        self._path_cache = None
        self._messages_cache = None
        self._generation += 1

    # ── Lifecycle and I/O ─────────────────────────────────────────────────────

    def end(self, reason: str) -> None:
        """Append a SessionEnded entry and close the session; later calls do nothing.

        A created session whose file was never written stays unwritten: nothing is added.
        """
        if self._closed:
            return
        if self._pending is None:
            self._append(Entry.new(self._leaf, SessionEndedPayload.model_construct(reason=reason)))
        self.close()

    def close(self) -> None:
        """Close the file and release the lock (without a SessionEnded entry); later changes
        raise SessionError."""
        self._closed = True
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()
        lock, self._lock = self._lock, None
        if lock is not None:
            with contextlib.suppress(OSError):
                lock.release()

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

    def _write(self, record: dict[str, Any], *, deferrable: bool = False) -> None:
        """Write one line with one write and a flush (nothing for in-memory sessions).

        A created session holds `deferrable` lines (its system message) in memory until the
        first other line, which creates the file. A failed write closes the session: whatever
        part of the line reached the disk is then the file's unfinished last line, which the
        next `open` skips.
        """
        if self._path is None:
            return
        data = (dump_line(record) + "\n").encode("utf-8")
        if self._pending is not None:
            if deferrable:
                self._pending.append(data)
                return
            data = self._materialize(data)
        file = self._file
        if file is None:
            return
        if self._torn is not None:
            self._move_torn_tail(file, self._torn)
        if self._needs_newline:
            data = b"\n" + data
        try:
            file.write(data)
            file.flush()
        except OSError as error:
            self.close()
            raise SessionError(f"cannot write session file {self._path}: {error}") from error
        self._needs_newline = False

    def _move_torn_tail(self, file: BinaryIO, tail: TornTail) -> None:
        """Move the unfinished last line to a side file before the first write; when that
        cannot be done the line stays, and the write starts on a new line after it."""
        from rho_kernel.session.torn import move_aside

        self._torn = None
        assert self._path is not None
        try:
            side = move_aside(self._path, file, tail)
        except OSError as error:
            self._needs_newline = True
            diagnostics.warn(
                f"{self._path}: the unfinished last line could not be moved aside ({error}); "
                "it stays, and the next entry starts on a new line after it"
            )
            return
        diagnostics.warn(
            f"{self._path}: moved the unfinished last line ({len(tail.fragment)} bytes) to "
            f"{side.name}"
        )

    def _materialize(self, data: bytes) -> bytes:
        """Create the folders, the lock and the file of a created session; returns what to
        write: the header, the lines held so far and `data`."""
        path = self._path
        assert path is not None and self._pending is not None
        try:
            make_private_dir(path.parent)
        except OSError as error:
            raise SessionError(f"cannot create session folder {path.parent}: {error}") from error
        lock = SessionLock.acquire(path)
        try:
            file = create_private_file(path)
        except OSError as error:
            lock.release()
            raise SessionError(f"cannot create session file {path}: {error}") from error
        header = (dump_line(self._header.to_json()) + "\n").encode("utf-8")
        blob = b"".join([header, *self._pending, data])
        self._lock, self._file, self._pending = lock, file, None
        return blob


def _message_payload(message: ChatMessage) -> MessagePayload:
    """The payload holding `message` (a message model is kept as it is, unvalidated again)."""
    if isinstance(message, ChatMessage):
        return MessagePayload.model_construct(message=message)
    return MessagePayload(message=message)


__all__ = ["CANCELLED_TOOL_CALL", "CUSTOM_KIND", "Session", "SessionError", "SessionLocked"]
