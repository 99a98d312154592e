"""Opening files by path that may be FIFOs, devices or directories: never waiting."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from rho_kernel.security.regular_file import (
    FileTooLargeError,
    NotRegularFileError,
    check_regular,
    open_append,
    open_regular,
    read_optional,
    read_regular_file,
)


def test_a_regular_file_is_read_and_a_missing_one_is_none(tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_bytes(b"x = 1\n")
    assert read_regular_file(path, limit=100) == b"x = 1\n"
    assert read_optional(tmp_path / "missing", limit=100) is None
    assert read_optional(path / "below-a-file", limit=100) is None
    assert check_regular(path) and not check_regular(tmp_path / "missing")


@pytest.mark.parametrize("kind", ["FIFO", "directory", "device"])
def test_special_files_are_refused_without_waiting(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "special"
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/zero")  # endless: reading it would never stop
    with pytest.raises(NotRegularFileError) as caught:
        read_regular_file(path, limit=100)
    assert caught.value.kind == kind and caught.value.filename == str(path)
    assert caught.value.strerror == f"is a {kind}, not a regular file"
    with pytest.raises(NotRegularFileError):
        check_regular(path)
    with pytest.raises(NotRegularFileError):
        open_regular(path)


def test_a_link_is_refused_when_links_are_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_regular_file(link, limit=10) == b"x"
    with pytest.raises(NotRegularFileError) as caught:
        read_regular_file(link, limit=10, follow_symlinks=False)
    assert caught.value.kind == "symbolic link"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link.unlink()
    link.symlink_to(fifo)
    with pytest.raises(NotRegularFileError):
        read_regular_file(link, limit=10)


def test_a_file_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"a" * 101)
    with pytest.raises(FileTooLargeError) as caught:
        read_regular_file(path, limit=100)
    assert "is larger than 100 bytes" in str(caught.value)


def test_a_fifo_swapped_in_between_check_and_open_never_blocks(tmp_path: Path) -> None:
    """Swap a regular file and a FIFO back and forth while reading: every read either
    returns the file's bytes or refuses the FIFO; none waits (the test would hang)."""
    path = tmp_path / "swapped"
    regular, fifo = tmp_path / "regular", tmp_path / "fifo"
    regular.write_bytes(b"content")
    os.mkfifo(fifo)
    os.link(regular, path)
    stop = threading.Event()

    def swap() -> None:
        spare = tmp_path / "spare"
        while not stop.is_set():
            for source in (fifo, regular):
                os.link(source, spare)
                os.replace(spare, path)

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    outcomes: set[str] = set()
    try:
        for _ in range(2000):
            try:
                assert read_regular_file(path, limit=100) == b"content"
                outcomes.add("read")
            except NotRegularFileError as exc:
                assert exc.kind in ("FIFO", "special file")
                outcomes.add("refused")
    finally:
        stop.set()
        swapper.join()
    assert outcomes <= {"read", "refused"}


def test_appending_never_waits_on_a_fifo(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"one\n")
    with open_append(path) as handle:
        handle.write(b"two\n")
    assert path.read_bytes() == b"one\ntwo\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        open_append(fifo)  # no reader: a plain open would wait for one
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(NotRegularFileError) as caught:
            open_append(fifo)  # with a reader: opened, then refused by its type
        assert caught.value.kind == "FIFO"
    finally:
        os.close(reader)
