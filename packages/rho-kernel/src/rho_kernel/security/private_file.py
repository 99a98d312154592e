"""Private files of rho's own under `~/.rho`: written atomically, mode 0600, never through a
symbolic link, in a directory of mode 0700; and the TOML string quoting they are written with."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


class PrivateFileError(Exception):
    """A private file or its directory cannot be written, or a value cannot be recorded."""


def toml_string(text: str) -> str:
    """`text` as a TOML basic string; lone surrogates (undecodable path bytes) cannot be."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            raise PrivateFileError(f"{text!r} is not valid UTF-8 and cannot be recorded")
        if char in '"\\':
            out.append("\\" + char)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def private_directory(directory: Path) -> None:
    """Create `directory` (0700) or tighten it to 0700; refuse a symbolic link."""
    try:
        with contextlib.suppress(FileExistsError):  # checked just below, whatever it is
            directory.mkdir(mode=0o700, parents=True)
        info = os.lstat(directory)
    except OSError as exc:
        raise PrivateFileError(f"cannot create {directory}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise PrivateFileError(f"{directory} is not a plain directory; nothing is written there")
    if stat.S_IMODE(info.st_mode) != 0o700:
        try:
            os.chmod(directory, 0o700)
        except OSError as exc:
            raise PrivateFileError(
                f"cannot make {directory} private: {exc.strerror or exc}"
            ) from None


def write_fully(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` (a write may take less than asked) and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def write_private(path: Path, data: bytes) -> None:
    """Replace `path` atomically with a 0600 file holding `data`, never following links."""
    private_directory(path.parent)
    temporary = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(temporary, flags, 0o600)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(descriptor, 0o600)  # exact mode, whatever the umask
            write_fully(descriptor, data)
        finally:
            os.close(descriptor)
        os.replace(temporary, path)  # replaces a link at `path` rather than following it
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise PrivateFileError(f"cannot write {path}: {exc.strerror or exc}") from None


__all__ = [
    "PrivateFileError",
    "private_directory",
    "toml_string",
    "write_fully",
    "write_private",
]
