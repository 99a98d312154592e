"""Replacing a file atomically inside the sandbox: a temporary file next to it, then a rename.

The temporary file is created in the destination's directory (held open by the sandbox's
`WriteTarget`) with `O_EXCL | O_NOFOLLOW`, filled, fsynced and renamed over the name relative
to that directory fd: the destination holds its old content or the new one, never a mix, and
a symlink at the name is replaced, never written through. An existing file's permissions are
kept.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable

from rho_kernel.security.errors import SandboxError
from rho_kernel.security.handles import WriteTarget
from rho_kernel.security.private_file import write_fully

#: How much of the file name the temporary file's name repeats (keeps it under NAME_MAX).
_TEMP_STEM_CHARS = 32


class WriteFailed(Exception):
    """A write step failed; the message is meant for the model."""


def explain_write_error(exc: OSError) -> str:
    """An OS error in a few lower-case words."""
    if isinstance(exc, NotADirectoryError):
        return "a parent of the path is a file, not a directory"
    return (exc.strerror or str(exc)).lower()


def _create_temp(target: WriteTarget) -> tuple[int, str]:
    """A new temporary file next to the destination: its fd and name."""
    while True:
        temp = f".{target.name[:_TEMP_STEM_CHARS]}.{secrets.token_hex(4)}.rho-tmp"
        try:
            return target.directory.create_file(temp), temp
        except FileExistsError:
            continue
        except OSError as exc:
            raise WriteFailed(explain_write_error(exc)) from None


def _fill(fd: int, data: bytes, mode: int | None) -> None:
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        write_fully(fd, data)
    finally:
        os.close(fd)


def replace_atomically(
    target: WriteTarget, data: bytes, *, before_replace: Callable[[], None] | None = None
) -> None:
    """Write `data` to a temporary file next to `target`, fsync it and rename it over.

    `before_replace`, called after the data is on disk and just before the rename, may raise
    to abandon the write (the temporary file is removed and the exception passes through).
    OS errors become `WriteFailed`. A target bound to an editor (`target.editor`) is handed
    to it instead when it can take it (see `rho_kernel.security.editor_files`).
    """
    if target.editor is not None:
        from rho_kernel.security.editor_files import write_through

        try:
            if write_through(target.editor, target, data, before_replace):
                return
        except SandboxError as exc:  # the directory moved under the write
            raise WriteFailed(str(exc)) from None
        except OSError as exc:
            raise WriteFailed(explain_write_error(exc)) from None
    mode = target.existing_mode()
    fd, temp = _create_temp(target)
    try:
        _fill(fd, data, mode)
        if before_replace is not None:
            before_replace()
        target.directory.replace(temp, target.name)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            target.directory.unlink(temp)
        if isinstance(exc, OSError):
            raise WriteFailed(explain_write_error(exc)) from None
        raise
    target.directory.sync()  # make the rename durable (best effort)


__all__ = ["WriteFailed", "explain_write_error", "replace_atomically"]
