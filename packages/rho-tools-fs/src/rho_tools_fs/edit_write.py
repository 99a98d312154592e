"""Writing an edited file: atomically, permissions kept, and only if nobody changed it.

The new content goes to a temporary file next to the destination (through the sandbox's
`WriteTarget`, like write_file), which is renamed over the file only after checking that
the file is still the one that was read: the same inode and the same bytes. A change made
by another process between edit_file's read and its write is refused rather than
overwritten. (A change landing in the instant between that check and the rename cannot be
detected without locks, which other programs would not honour anyway.)
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass

from rho_kernel.security import SandboxRoot, WriteTarget

_TEMP_STEM_CHARS = 32


class FileChanged(Exception):
    """The file on disk is no longer the one the edit was computed from."""


class WriteFailed(Exception):
    """A write step failed; the message is meant for the model."""


@dataclass(frozen=True)
class ReadState:
    """What the edit was computed from: the bytes and the file's identity."""

    data: bytes
    device: int
    inode: int


def _explain(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def _create_temp(target: WriteTarget) -> tuple[int, str]:
    while True:
        temp = f".{target.name[:_TEMP_STEM_CHARS]}.{secrets.token_hex(4)}.rho-tmp"
        try:
            return target.directory.create_file(temp), temp
        except FileExistsError:
            continue
        except OSError as exc:
            raise WriteFailed(_explain(exc)) from None


def _check_unchanged(root: SandboxRoot, path: str, target: WriteTarget, read: ReadState) -> None:
    try:
        info = target.directory.lstat(target.name)
        with root.open_read(path) as handle:
            current = handle.read(len(read.data) + 1)
    except OSError as exc:
        raise FileChanged(f"it can no longer be read ({_explain(exc)})") from None
    if (info.st_dev, info.st_ino) != (read.device, read.inode):
        raise FileChanged("it was replaced by another file")
    if current != read.data:
        raise FileChanged("its content changed")


def write_if_unchanged(root: SandboxRoot, path: str, read: ReadState, data: bytes) -> None:
    """Replace the file at `path` with `data` if it still holds `read` (blocking)."""
    with root.write_parent(path) as target:
        mode = target.existing_mode()
        fd, temp = _create_temp(target)
        try:
            try:
                if mode is not None:
                    os.fchmod(fd, mode)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            _check_unchanged(root, path, target, read)
            target.directory.replace(temp, target.name)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                target.directory.unlink(temp)
            if isinstance(exc, OSError):
                raise WriteFailed(_explain(exc)) from None
            raise
        target.directory.sync()


__all__ = ["FileChanged", "ReadState", "WriteFailed", "write_if_unchanged"]
