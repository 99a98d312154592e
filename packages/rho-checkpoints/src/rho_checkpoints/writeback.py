"""Writing files back from a snapshot, each one whole.

Each file's content is read from the store (`git cat-file --batch`, a bounded batch at a
time) and written through the kernel's sandbox: the folder is reached from the root's fd
(a folder swapped for a link meanwhile cannot send the write outside, nor into `.git`,
`.rho` or rho's state directory), the content goes to a new temporary file next to the
destination and is renamed over it. A rho killed half-way leaves every file either as it
was or as the snapshot had it, never cut short. (No file is flushed to the disk one by one:
that would make a restore of a hundred files take seconds; the rename alone is what keeps
each file whole when a process dies.) A symbolic link in the snapshot comes back
as a link; a link now standing where a file was is replaced, never written through.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from rho_checkpoints.gitcmd import CheckpointError, GitRunner

if TYPE_CHECKING:
    from rho_kernel.security import SandboxDir, SandboxRoot, WriteTarget

#: Git's modes for an executable file and a symbolic link.
EXECUTABLE = "100755"
SYMLINK = "120000"
#: The most file content read from the store at once.
BATCH_BYTES = 32 << 20


@dataclass(frozen=True)
class Blob:
    """One file of a snapshot: its path, git mode, object id and size."""

    path: str
    mode: str
    oid: str
    size: int


def blobs_of(git: GitRunner, commit: str, paths: list[str]) -> list[Blob]:
    """The files at `paths` in snapshot `commit` (paths it does not hold are left out)."""
    wanted = set(paths)
    listing = git.run(["ls-tree", "-r", "-z", "--full-tree", commit])
    found = []
    for record in listing.split(b"\0"):
        header, _, raw_path = record.partition(b"\t")
        path = os.fsdecode(raw_path)
        if path in wanted:
            mode, kind, oid = header.decode().split()
            if kind == "blob":
                found.append((path, mode, oid))
    sizes = _sizes(git, {oid for _, _, oid in found})
    return [Blob(path, mode, oid, sizes[oid]) for path, mode, oid in found]


def _sizes(git: GitRunner, oids: set[str]) -> dict[str, int]:
    """The size of each object, from one `cat-file --batch-check`."""
    if not oids:
        return {}
    listed = git.run(["cat-file", "--batch-check"], input="".join(f"{o}\n" for o in oids).encode())
    sizes = {}
    for line in listed.decode().splitlines():
        oid, _, size = line.split()
        sizes[oid] = int(size)
    return sizes


def write_back(git: GitRunner, sandbox: SandboxRoot, blobs: list[Blob]) -> None:
    """Write each of `blobs` to its path inside `sandbox`, with its content and kind."""
    for batch in _batches(blobs):
        contents = _read_contents(git, batch)
        for blob in batch:
            _write_one(sandbox, blob, contents[blob.oid])


def _batches(blobs: list[Blob]) -> Iterator[list[Blob]]:
    batch: list[Blob] = []
    size = 0
    for blob in blobs:
        if batch and size + blob.size > BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(blob)
        size += blob.size
    if batch:
        yield batch


def _read_contents(git: GitRunner, blobs: list[Blob]) -> dict[str, bytes]:
    """The content of each blob, by object id, from one `cat-file --batch`."""
    oids = sorted({blob.oid for blob in blobs})
    output = git.run(["cat-file", "--batch"], input="".join(f"{oid}\n" for oid in oids).encode())
    contents: dict[str, bytes] = {}
    position = 0
    for oid in oids:
        end = output.index(b"\n", position)
        header = output[position:end].decode().split()
        if len(header) != 3 or header[0] != oid:
            raise CheckpointError(f"the store has no object {oid}")
        size = int(header[2])
        contents[oid] = output[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    return contents


def _temp_name(name: str) -> str:
    return f".{name[:32]}.{secrets.token_hex(4)}.rho-tmp"


def folder_of(sandbox: SandboxRoot, path: str, *, make: bool = False) -> WriteTarget:
    """The folder holding `path`, reached from the root's fd (made with `make`), and the
    last name of `path`. The sandbox is asked for a new name in that folder, so a link at
    `path` itself is neither followed nor refused: it is the entry acted on."""
    relative = PurePosixPath(path)
    return sandbox.write_parent(str(relative.parent / _temp_name(relative.name)), make_parents=make)


def delete(sandbox: SandboxRoot, path: str) -> None:
    """Delete the file or link at `path` (nothing when it is gone already); raises
    `CheckpointError` when it cannot be reached inside the project."""
    from rho_kernel.security import PathNotFoundError, SandboxError

    name = PurePosixPath(path).name
    try:
        with folder_of(sandbox, path) as target:
            target.directory.unlink(name)
    except (FileNotFoundError, PathNotFoundError):
        return
    except (SandboxError, OSError) as exc:
        raise CheckpointError(f"{path} was not deleted: {exc}") from None


def _write_one(sandbox: SandboxRoot, blob: Blob, content: bytes) -> None:
    from rho_kernel.security import SandboxError

    relative = PurePosixPath(blob.path)
    try:
        with folder_of(sandbox, blob.path, make=True) as target:
            temp = target.name
            directory = target.directory
            if blob.mode == SYMLINK:
                _make_link(directory.fd, directory.path, temp, content)
            else:
                _make_file(directory, temp, relative.name, content, blob.mode == EXECUTABLE)
            try:
                directory.replace(temp, relative.name)
            except BaseException:
                with contextlib.suppress(OSError):
                    directory.unlink(temp)
                raise
    except (SandboxError, OSError) as exc:
        raise CheckpointError(f"{blob.path} was not restored: {exc}") from None


def _make_file(
    directory: SandboxDir, temp: str, name: str, content: bytes, executable: bool
) -> None:
    """A new file `temp` with `content`: the permission bits of the file now at `name` (the
    executable bits as the snapshot says), or the usual ones for a new file."""
    fd = directory.create_file(temp, 0o777 if executable else 0o666)
    try:
        with contextlib.suppress(FileNotFoundError):
            now = directory.lstat(name)
            if stat.S_ISREG(now.st_mode):
                os.fchmod(fd, _kept_mode(stat.S_IMODE(now.st_mode), executable))
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            directory.unlink(temp)
        raise
    os.close(fd)


def _kept_mode(mode: int, executable: bool) -> int:
    """`mode` with its executable bits set where it is readable (or cleared), as git would."""
    return (mode & ~0o111) | ((mode & 0o444) >> 2 if executable else 0)


def _make_link(fd: int | None, folder: Path, temp: str, target: bytes) -> None:
    if fd is None:
        os.symlink(os.fsdecode(target), folder / temp)
    else:
        os.symlink(os.fsdecode(target), temp, dir_fd=fd)


__all__ = ["Blob", "blobs_of", "delete", "folder_of", "write_back"]
