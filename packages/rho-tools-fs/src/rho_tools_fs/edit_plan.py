"""Planning an edit: read the file once, validate and resolve every edit, apply them in memory.

Nothing here writes; `plan_edit` (blocking, run it in a worker thread) returns an `EditPlan`
with the new content, or raises `EditError` with the message for the model.
"""

from __future__ import annotations

import io
import os
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rho_kernel import escape_controls
from rho_kernel.security import (
    FileTypeError,
    KeyBlockLines,
    PathNotFoundError,
    ProtectedPathError,
    SandboxError,
    SandboxRoot,
)
from rho_tools_fs import exact_edit, hashline_edit
from rho_tools_fs.edit_document import (
    Applied,
    Document,
    EditError,
    Splice,
    apply_splices,
    check_overlaps,
)
from rho_tools_fs.edit_write import ReadState
from rho_tools_fs.languages import language_for
from rho_tools_fs.syntax import ByteEdit

#: Files larger than this are not edited (10 MiB, as read_file).
MAX_EDIT_BYTES = 10 * 1024 * 1024
_BINARY_SNIFF_BYTES = 8192


@dataclass
class EditPlan:
    """An edit computed in memory, ready to be checked and written."""

    path: str
    shown: str
    read: ReadState
    doc: Document
    ordered: list[Splice]
    applied: Applied
    new_data: bytes
    hashline_count: int
    exact_count: int
    notes: list[str] = field(default_factory=list)
    language: str | None = None

    @property
    def unchanged(self) -> bool:
        """Whether the edits leave the file as it was."""
        return self.new_data == self.read.data


def sandbox_hint(root: SandboxRoot) -> str:
    """The reminder appended when a path is refused."""
    return (
        f"Paths are relative to the project root ({root.path}); absolute paths must lie inside it."
    )


def _open(root: SandboxRoot, path: str) -> io.BufferedReader:
    """The file to edit, open for reading through the sandbox (raises `EditError`)."""
    try:
        root.validate_for_write(path)
        return root.open_read(path)
    except PathNotFoundError:
        raise EditError(
            f"edit_file: '{escape_controls(path)}' not found. {sandbox_hint(root)}"
        ) from None
    except FileTypeError as exc:
        kind = "a directory" if exc.kind == "directory" else f"a {exc.kind}"
        raise EditError(
            f"edit_file: '{escape_controls(path)}' is {kind}, not a regular file"
        ) from None
    except ProtectedPathError as exc:
        raise EditError(f"edit_file: {exc}") from None
    except SandboxError as exc:
        raise EditError(f"edit_file: {exc}. {sandbox_hint(root)}") from None
    except OSError as exc:
        raise EditError(
            f"edit_file: failed to read '{escape_controls(path)}': {exc.strerror or exc}"
        ) from None


def _read(root: SandboxRoot, path: str) -> tuple[ReadState, str, str]:
    """The file's bytes and identity, its text, and its path relative to the root."""
    with _open(root, path) as handle:
        try:
            info = os.fstat(handle.fileno())
            data = handle.read(MAX_EDIT_BYTES + 1)
        except OSError as exc:
            raise EditError(
                f"edit_file: failed to read '{escape_controls(path)}': {exc.strerror or exc}"
            ) from None
        shown = escape_controls(root.relative(Path(handle.name)))
    if len(data) > MAX_EDIT_BYTES:
        raise EditError(
            f"edit_file: '{shown}' is too large to edit (over {MAX_EDIT_BYTES} bytes = 10 MiB)"
        )
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        raise EditError(f"edit_file: '{shown}' is a binary file; it cannot be edited as text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EditError(
            f"edit_file: '{shown}' is not valid UTF-8 (at byte {exc.start}); edit_file only "
            "edits UTF-8 text, which it would otherwise corrupt. Use write_file to replace it."
        ) from None
    return ReadState(data, info.st_dev, info.st_ino), text, shown


def _splices(doc: Document, edits: list[Any], shown: str) -> tuple[list[Splice], list[str], int]:
    """One splice per edit (in order), relocation notes, and the number of hashline edits."""
    if not edits:
        raise EditError("edit_file: no edits provided")
    splices: list[Splice] = []
    notes: list[str] = []
    hashline_count = 0
    for index, edit in enumerate(edits, 1):
        if _is_hashline(index, edit):
            checked = hashline_edit.validate(index, edit)
            if doc.line_count == 0:
                raise EditError(
                    "edit_file: cannot edit empty file (it has no line anchors); "
                    "use write_file to give it content"
                )
            splices.append(hashline_edit.to_splice(doc, checked, notes))
            hashline_count += 1
        else:
            splices.append(exact_edit.to_splice(doc, index, edit, shown))
    return splices, notes, hashline_count


def _is_hashline(index: int, edit: Any) -> bool:
    """Whether edit number `index` is a hashline edit (False: an exact-match edit); raises
    `EditError` when it is neither, or not an object."""
    if not isinstance(edit, dict):
        raise EditError(f"edit_file: edit {index} is not an object")
    if "op" in edit and "old_text" in edit:
        raise EditError(
            f"edit_file: edit {index} has both 'op' and 'old_text'; an edit is either a "
            "hashline edit (op, pos, end, lines) or an exact-match edit (old_text, new_text)"
        )
    if "op" not in edit and "old_text" not in edit:
        raise EditError(
            f"edit_file: edit {index} has neither 'op' (a hashline edit) nor 'old_text' "
            "(an exact-match edit)"
        )
    return "op" in edit


def check_edit(root: SandboxRoot, path: str, edits: list[Any]) -> None:
    """Raise `EditError` when `edits` of `path` cannot run whatever the file holds: the file
    is missing, not a regular file, refused by the sandbox or unreadable, or an edit is
    malformed (blocking). Nothing of the file's content is read: this runs before anyone
    approved the edit."""
    _open(root, path).close()
    if not edits:
        raise EditError("edit_file: no edits provided")
    for index, edit in enumerate(edits, 1):
        if _is_hashline(index, edit):
            hashline_edit.validate(index, edit)
        else:
            exact_edit.check_strings(index, edit)


def plan_edit(
    root: SandboxRoot,
    path: str,
    edits: list[Any],
    key_lines: Callable[[str], KeyBlockLines] = KeyBlockLines.of,
) -> EditPlan:
    """Read `path` and compute the result of `edits` (blocking). `key_lines` finds the lines
    that messages must not show (`ToolContext.key_block_lines`)."""
    read, text, shown = _read(root, path)
    doc = Document(text, key_lines(text))
    splices, notes, hashline_count = _splices(doc, edits, shown)
    ordered = check_overlaps(splices)
    applied = apply_splices(doc, ordered)
    try:
        new_data = applied.raw.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EditError(
            f"edit_file: the new text is not valid Unicode (unpaired surrogate at character "
            f"{exc.start} of the result); nothing was written"
        ) from None
    return EditPlan(
        path=path,
        shown=shown,
        read=read,
        doc=doc,
        ordered=ordered,
        applied=applied,
        new_data=new_data,
        hashline_count=hashline_count,
        exact_count=len(splices) - hashline_count,
        notes=notes,
        language=language_for(shown),
    )


def _point(raw: str, starts: list[int], offset: int) -> tuple[int, int]:
    row = bisect_right(starts, offset) - 1
    return row, len(raw[starts[row] : offset].encode("utf-8"))


def byte_edits(plan: EditPlan) -> tuple[list[ByteEdit], list[tuple[int, str, int]]]:
    """The edit as tree-sitter input edits, and the byte offsets of exact-match boundaries."""
    raw, starts = plan.doc.raw, plan.doc.raw_starts
    edits: list[ByteEdit] = []
    boundaries: list[tuple[int, str, int]] = []
    char_at = byte_at = 0

    def to_byte(offset: int) -> int:
        nonlocal char_at, byte_at
        byte_at += len(raw[char_at:offset].encode("utf-8"))
        char_at = offset
        return byte_at

    for splice, (start, end, text) in zip(plan.ordered, plan.applied.raw_ranges, strict=True):
        start_byte, end_byte = to_byte(start), to_byte(end)
        start_point = _point(raw, starts, start)
        encoded = text.encode("utf-8")
        if "\n" in text:
            tail = text[text.rfind("\n") + 1 :].encode("utf-8")
            new_end = (start_point[0] + text.count("\n"), len(tail))
        else:
            new_end = (start_point[0], start_point[1] + len(encoded))
        edits.append(
            ByteEdit(
                start_byte,
                end_byte,
                start_byte + len(encoded),
                start_point,
                _point(raw, starts, end),
                new_end,
            )
        )
        if splice.exact:
            boundaries += [(splice.edit, "start", start_byte), (splice.edit, "end", end_byte)]
    return edits, boundaries


__all__ = [
    "MAX_EDIT_BYTES",
    "EditPlan",
    "byte_edits",
    "check_edit",
    "plan_edit",
    "sandbox_hint",
]
