"""Writing an edited file: atomically, permissions kept, and only if nobody changed it.

The new content goes to a temporary file next to the destination (through the sandbox's
`WriteTarget`, like write_file), which is renamed over the file only after checking that
the file is still the one that was read: the same inode and the same bytes. A change made
by another process between edit_file's read and its write is refused rather than
overwritten. (A change landing in the instant between that check and the rename cannot be
detected without locks, which other programs would not honour anyway.)
"""

from __future__ import annotations

from dataclasses import dataclass

from rho_kernel.security import (
    SandboxRoot,
    WriteFailed,
    WriteTarget,
    explain_write_error,
    replace_atomically,
)


class FileChanged(Exception):
    """The file on disk is no longer the one the edit was computed from."""


@dataclass(frozen=True)
class ReadState:
    """What the edit was computed from: the bytes and the file's identity."""

    data: bytes
    device: int
    inode: int


def _check_unchanged(root: SandboxRoot, path: str, target: WriteTarget, read: ReadState) -> None:
    try:
        info = target.directory.lstat(target.name)
        with root.open_read(path) as handle:
            current = handle.read(len(read.data) + 1)
    except OSError as exc:
        raise FileChanged(f"it can no longer be read ({explain_write_error(exc)})") from None
    if (info.st_dev, info.st_ino) != (read.device, read.inode):
        raise FileChanged("it was replaced by another file")
    if current != read.data:
        raise FileChanged("its content changed")


def write_if_unchanged(root: SandboxRoot, path: str, read: ReadState, data: bytes) -> None:
    """Replace the file at `path` with `data` if it still holds `read` (blocking)."""
    with root.write_parent(path) as target:
        replace_atomically(
            target, data, before_replace=lambda: _check_unchanged(root, path, target, read)
        )


__all__ = ["FileChanged", "ReadState", "WriteFailed", "write_if_unchanged"]
