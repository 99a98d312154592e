"""Hiding private-key lines in search matches, judged on each matched file as a whole.

A search shows single lines, so a key's base64 body can match without its BEGIN or END
line. Each file with a match is read again, whole, through the sandbox root, and a match
on a line inside a private key block is shown as `[REDACTED]`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rho_kernel.security import REDACTED, KeyBlockLines, SandboxError, SandboxRoot
from rho_tools_fs.ripgrep import MAX_FILESIZE_BYTES


class Match(NamedTuple):
    """A matched line: the file's root-relative path (as the OS spells it), its number, text."""

    path: str
    number: int
    text: str


def hide_key_lines(
    root: SandboxRoot, key_lines: Callable[[bytes], KeyBlockLines], matches: Sequence[Match]
) -> list[Match]:
    """`matches` with the text of each line that lies inside a private key block of its file
    replaced by `[REDACTED]`. A file that can no longer be read whole through `root` (gone,
    replaced by a link, grown past the search's size limit) has all its lines hidden: what
    was matched cannot be checked. Blocking: run it in a thread."""
    blocks: dict[str, KeyBlockLines | None] = {}
    shown: list[Match] = []
    for match in matches:
        if match.path not in blocks:
            blocks[match.path] = _blocks_of(root, match.path, key_lines)
        found = blocks[match.path]
        if found is None or match.number in found:
            match = match._replace(text=REDACTED)
        shown.append(match)
    return shown


def _blocks_of(
    root: SandboxRoot, path: str, key_lines: Callable[[bytes], KeyBlockLines]
) -> KeyBlockLines | None:
    try:
        with root.open_read(path) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_FILESIZE_BYTES:
                return None
            data = handle.read(MAX_FILESIZE_BYTES + 1)
    except (SandboxError, OSError):
        return None
    if len(data) > MAX_FILESIZE_BYTES:
        return None
    return key_lines(data)


__all__ = ["Match", "hide_key_lines"]
