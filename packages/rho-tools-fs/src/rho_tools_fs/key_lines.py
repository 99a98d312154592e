"""Leaving private-key lines out of search matches, judged on each matched file as a whole.

A search shows single lines, so a key's base64 body can match without its BEGIN or END
line. Each file with a match is read again, whole, through the sandbox root, and a match on
a line inside a private key block is left out. Not shown as `[REDACTED]` either: whether a
pattern matches a hidden line would tell a model what the line holds, a pattern at a time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rho_kernel.security import KeyBlockLines, SandboxError, SandboxRoot
from rho_tools_fs.ripgrep import MAX_FILESIZE_BYTES

#: `key_lines(whole_content)`: the lines of a file inside private key blocks.
KeyLines = Callable[[bytes], KeyBlockLines]


class Match(NamedTuple):
    """A matched line: the file's root-relative path (as the OS spells it), its number, text."""

    path: str
    number: int
    text: str


def visible_matches(
    root: SandboxRoot, key_lines: KeyLines, matches: Sequence[Match]
) -> list[Match]:
    """`matches` without those on a line that lies inside a private key block of its file. A
    file that can no longer be read whole through `root` (gone, replaced by a link, grown
    past the search's size limit) has all its matches left out: what was matched cannot be
    checked. Blocking: run it in a thread."""
    blocks: dict[str, KeyBlockLines | None] = {}
    shown: list[Match] = []
    for match in matches:
        if match.path not in blocks:
            blocks[match.path] = _blocks_of(root, match.path, key_lines)
        found = blocks[match.path]
        if found is not None and match.number not in found:
            shown.append(match)
    return shown


def without_key_lines(key_lines: KeyLines, content: bytes, matches: Sequence[Match]) -> list[Match]:
    """`matches` in one file whose whole `content` is at hand, without those on key lines."""
    if not matches:
        return []
    found = key_lines(content)
    return [match for match in matches if match.number not in found]


def read_searchable(root: SandboxRoot, path: str) -> bytes | None:
    """The whole content of the file at `path`, read through `root`; None when it cannot be
    read or is larger than the search's size limit."""
    try:
        with root.open_read(path) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_FILESIZE_BYTES:
                return None
            data = handle.read(MAX_FILESIZE_BYTES + 1)
    except (SandboxError, OSError):
        return None
    return None if len(data) > MAX_FILESIZE_BYTES else data


def _blocks_of(root: SandboxRoot, path: str, key_lines: KeyLines) -> KeyBlockLines | None:
    data = read_searchable(root, path)
    return None if data is None else key_lines(data)


__all__ = ["KeyLines", "Match", "read_searchable", "visible_matches", "without_key_lines"]
