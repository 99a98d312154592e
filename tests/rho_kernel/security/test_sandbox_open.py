"""SandboxRoot.open_read / open_dir / write_parent: every component case of the fd walk."""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

import pytest

from rho_kernel.security import (
    FileTypeError,
    PathNotFoundError,
    SandboxError,
    SandboxRoot,
)

# Every case holds through directory fds and with the path-check fallback alike.
pytestmark = pytest.mark.usefixtures("backend")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A project with a few files and a sibling "outside" dir holding a secret."""
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "src" / "main.rs").write_text("fn main() {}\n")
    (project / "src" / "deep" / "leaf.txt").write_text("leaf\n")
    (project / "README.md").write_text("readme\n")
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return project, outside


@pytest.fixture
def root(layout: tuple[Path, Path]) -> SandboxRoot:
    return SandboxRoot(layout[0])


def read(root: SandboxRoot, path: str | Path) -> str:
    with root.open_read(path) as handle:
        return handle.read().decode()


# ── open_read: allowed ──────────────────────────────────────────────────────


def test_open_read_names_the_canonical_path(root: SandboxRoot) -> None:
    with root.open_read("src/../src/main.rs") as handle:
        assert handle.name == str(root.path / "src" / "main.rs")
        assert handle.read() == b"fn main() {}\n"


def test_open_read_absolute_inside(root: SandboxRoot) -> None:
    assert read(root, root.path / "README.md") == "readme\n"


def test_open_read_through_an_alias_of_the_root(root: SandboxRoot, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(root.path, target_is_directory=True)
    assert read(root, str(alias / "README.md")) == "readme\n"


def test_open_read_follows_a_symlinked_parent_inside(root: SandboxRoot) -> None:
    (root.path / "lib").symlink_to("src", target_is_directory=True)
    assert read(root, "lib/main.rs") == "fn main() {}\n"


def test_open_read_follows_an_absolute_symlink_inside(root: SandboxRoot) -> None:
    (root.path / "abs").symlink_to(root.path / "src" / "main.rs")
    assert read(root, "abs") == "fn main() {}\n"


def test_open_read_follows_a_chain_of_links_inside(root: SandboxRoot) -> None:
    (root.path / "one").symlink_to("two")
    (root.path / "two").symlink_to("src/deep")
    assert read(root, "one/leaf.txt") == "leaf\n"


def test_dotdot_after_a_symlink_is_physical(root: SandboxRoot) -> None:
    # `deep-link/..` is the parent of the link's target (src), not the link's directory.
    (root.path / "deep-link").symlink_to("src/deep", target_is_directory=True)
    assert read(root, "deep-link/../main.rs") == "fn main() {}\n"
    with pytest.raises(PathNotFoundError):
        root.open_read("deep-link/../README.md")


def test_deep_paths_with_many_dotdots(root: SandboxRoot) -> None:
    # Deeper than the walk keeps fds for: climbing back reopens directories by name.
    names = [f"d{i}" for i in range(40)]
    deep = root.path.joinpath(*names)
    deep.mkdir(parents=True)
    (root.path / "d0" / "d1" / "here.txt").write_text("here\n")
    path = "/".join(names) + "/.." * 38 + "/here.txt"
    assert read(root, path) == "here\n"


def test_non_utf8_names(root: SandboxRoot) -> None:
    raw_dir = os.fsencode(root.path) + b"/caf\xe9"
    os.mkdir(raw_dir)
    with open(raw_dir + b"/n\xffme.txt", "wb") as handle:
        handle.write(b"latin\n")
    os.symlink(b"caf\xe9/n\xffme.txt", os.fsencode(root.path) + b"/link\xfe")
    assert read(root, "caf\udce9/n\udcffme.txt") == "latin\n"
    assert read(root, "link\udcfe") == "latin\n"
    assert root.validate("link\udcfe") == root.path / "caf\udce9" / "n\udcffme.txt"


# ── open_read: refused ──────────────────────────────────────────────────────


def test_open_read_refuses_dotdot_above_the_root(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("../outside/secret.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("src/../../outside/secret.txt")


def test_open_read_refuses_absolute_paths_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read(layout[1] / "secret.txt")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read(str(root.path) + "/../outside/secret.txt")


def test_open_read_refuses_a_symlinked_parent_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "vendor").symlink_to(layout[1], target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("vendor/secret.txt")
    (root.path / "src" / "up").symlink_to("../../outside", target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("src/up/secret.txt")


def test_open_read_refuses_a_symlinked_file_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    (root.path / "innocent.txt").symlink_to(layout[1] / "secret.txt")
    (root.path / "relative.txt").symlink_to("../outside/secret.txt")
    for name in ("innocent.txt", "relative.txt"):
        with pytest.raises(SandboxError, match="outside the project sandbox"):
            root.open_read(name)


def test_dotdot_after_a_symlink_to_the_root_cannot_climb(root: SandboxRoot) -> None:
    (root.path / "here").symlink_to(".", target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("here/../outside/secret.txt")


def test_symlink_loops_are_a_clean_error(root: SandboxRoot) -> None:
    (root.path / "a").symlink_to("b")
    (root.path / "b").symlink_to("a")
    (root.path / "self").symlink_to("self")
    for path in ("a", "a/x", "self"):
        with pytest.raises(SandboxError, match="too many levels of symbolic links") as info:
            root.open_read(path)
        assert not isinstance(info.value, PathNotFoundError)


def test_open_read_missing_paths(root: SandboxRoot) -> None:
    for path in ("nope.txt", "nope/deeper.txt", "README.md/child"):
        with pytest.raises(PathNotFoundError, match="does not exist"):
            root.open_read(path)


def test_open_read_refuses_a_directory(root: SandboxRoot) -> None:
    for path in ("src", ".", "src/.."):
        with pytest.raises(FileTypeError) as info:
            root.open_read(path)
        assert info.value.kind == "directory"


def test_open_read_refuses_a_fifo_without_blocking(root: SandboxRoot) -> None:
    os.mkfifo(root.path / "pipe")
    (root.path / "pipe-link").symlink_to("pipe")
    for path in ("pipe", "pipe-link"):
        with pytest.raises(FileTypeError, match="is a FIFO, not a regular file") as info:
            root.open_read(path)
        assert info.value.kind == "FIFO"


def test_open_read_refuses_a_socket(root: SandboxRoot) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root.path / "sock"))
        with pytest.raises(FileTypeError, match="is a socket, not a regular file"):
            root.open_read("sock")


def test_open_read_refuses_a_link_to_a_device_outside(root: SandboxRoot) -> None:
    (root.path / "null").symlink_to("/dev/null")
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_read("null")


def test_nul_bytes_are_refused(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="NUL"):
        root.open_read("README.md\0.txt")
    with pytest.raises(SandboxError, match="NUL"):
        root.write_parent("x\0y")


def test_very_long_paths_and_names_are_a_clear_error(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match=r"is too long \(5000 bytes; at most 4096\)"):
        root.open_read("a/" * 2500)
    with pytest.raises(SandboxError, match="is longer than 255 bytes"):
        root.open_read("n" * 256)
    with pytest.raises(SandboxError, match="is longer than 255 bytes"):
        root.write_parent("dir/" + "n" * 300, make_parents=True)
    assert not (root.path / "dir").exists()


def test_long_names_in_link_targets_are_a_clear_error(root: SandboxRoot) -> None:
    os.symlink("m" * 300, root.path / "long-link")
    with pytest.raises(SandboxError, match=r"is longer than 255 bytes|file name too long"):
        root.open_read("long-link")


def test_unencodable_paths_are_refused(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match="no file name can contain"):
        root.open_read("bad\ud800name")


# ── open_dir ────────────────────────────────────────────────────────────────


def test_open_dir_lists_entries(root: SandboxRoot) -> None:
    (root.path / "lib").symlink_to("src", target_is_directory=True)
    for path in ("src", "lib", "lib/"):
        with root.open_dir(path) as directory, directory.scandir() as entries:
            assert sorted(entry.name for entry in entries) == ["deep", "main.rs"]
            assert directory.path == root.path / "src"
    with root.open_dir(".") as directory:
        assert directory.path == root.path


def test_open_dir_refuses_files_and_escapes(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    with pytest.raises(FileTypeError, match="is a file, not a directory"):
        root.open_dir("README.md")
    (root.path / "vendor").symlink_to(layout[1], target_is_directory=True)
    with pytest.raises(SandboxError, match="outside the project sandbox"):
        root.open_dir("vendor")
    with pytest.raises(PathNotFoundError):
        root.open_dir("nope")


# ── write_parent ────────────────────────────────────────────────────────────


def test_write_parent_existing_directory(root: SandboxRoot) -> None:
    with root.write_parent("src/new.rs") as target:
        assert target.name == "new.rs"
        assert target.path == root.path / "src" / "new.rs"
        assert target.directory.path == root.path / "src"
        assert target.created == ()


def test_write_parent_missing_parent_without_make_parents(root: SandboxRoot) -> None:
    with pytest.raises(PathNotFoundError):
        root.write_parent("new/dir/file.txt")
    assert not (root.path / "new").exists()


def test_write_parent_creates_and_keeps_parents(root: SandboxRoot) -> None:
    with root.write_parent("a/b/c.txt", make_parents=True) as target:
        assert target.created == (root.path / "a", root.path / "a" / "b")
    assert (root.path / "a" / "b").is_dir()


def test_write_parent_removes_created_parents_when_the_block_fails(root: SandboxRoot) -> None:
    with pytest.raises(RuntimeError), root.write_parent("src/x/y/z.txt", make_parents=True):
        raise RuntimeError("write failed")
    assert sorted(p.name for p in (root.path / "src").iterdir()) == ["deep", "main.rs"]


def test_write_parent_follows_a_link_inside(root: SandboxRoot) -> None:
    (root.path / "alias.rs").symlink_to("src/main.rs")
    (root.path / "later.txt").symlink_to("src/deep/new/later.txt")  # dangling
    with root.write_parent("alias.rs") as target:
        assert target.path == root.path / "src" / "main.rs"
    with root.write_parent("later.txt", make_parents=True) as target:
        assert (target.name, target.path) == ("later.txt", root.path / "src/deep/new/later.txt")
        assert target.created == (root.path / "src" / "deep" / "new",)


def test_write_parent_refuses_links_leading_outside(
    root: SandboxRoot, layout: tuple[Path, Path]
) -> None:
    outside = layout[1]
    (root.path / "trap.txt").symlink_to(outside / "created.txt")  # dangling
    (root.path / "secret.txt").symlink_to(outside / "secret.txt")
    (root.path / "out").symlink_to(outside, target_is_directory=True)
    for path in ("trap.txt", "secret.txt", "out/new.txt", "out/deeper/new.txt"):
        with pytest.raises(SandboxError, match="outside the project sandbox"):
            root.write_parent(path, make_parents=True)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_write_parent_refuses_directories(root: SandboxRoot) -> None:
    for path in ("src", ".", "src/deep/.."):
        with pytest.raises(FileTypeError) as info:
            root.write_parent(path)
        assert info.value.kind == "directory"


def test_write_parent_below_a_file(root: SandboxRoot) -> None:
    with pytest.raises(NotADirectoryError):
        root.write_parent("README.md/child.txt", make_parents=True)


def test_write_parent_dotdot_below_new_directories(root: SandboxRoot) -> None:
    with pytest.raises(SandboxError, match=r"'\.\.' below a directory that does not exist"):
        root.write_parent("new/../x.txt", make_parents=True)
    assert not (root.path / "new").exists()


def test_write_parent_loop_is_a_clean_error(root: SandboxRoot) -> None:
    (root.path / "a").symlink_to("b")
    (root.path / "b").symlink_to("a")
    with pytest.raises(SandboxError, match="too many levels of symbolic links"):
        root.write_parent("a", make_parents=True)
    with pytest.raises(SandboxError, match="too many levels of symbolic links"):
        root.write_parent("a/new.txt", make_parents=True)


def test_write_target_operations_stay_in_the_directory(root: SandboxRoot) -> None:
    with root.write_parent("src/out.txt") as target:
        directory = target.directory
        fd = directory.create_file(".tmp")
        os.write(fd, b"x")
        os.close(fd)
        with pytest.raises(FileExistsError):
            directory.create_file(".tmp")
        directory.replace(".tmp", target.name)
        assert target.existing_mode() is not None
        for bad in ("../x", "a/b", "..", ""):
            with pytest.raises(ValueError):
                directory.create_file(bad)
    assert (root.path / "src" / "out.txt").read_text() == "x"


def test_no_descriptor_is_left_open(root: SandboxRoot, layout: tuple[Path, Path]) -> None:
    (root.path / "vendor").symlink_to(layout[1], target_is_directory=True)
    (root.path / "loop").symlink_to("loop")
    deep = "/".join(f"d{i}" for i in range(30))

    def exercise() -> None:
        for path in ("README.md", "src", "nope", "vendor/secret.txt", "loop", deep + "/x"):
            for opener in (root.open_read, root.open_dir):
                with contextlib.suppress(SandboxError):
                    opener(path).close()
            for check in (root.validate, root.validate_for_write):
                with contextlib.suppress(SandboxError):
                    check(path)
        with root.write_parent(deep + "/x.txt", make_parents=True):
            pass
        with pytest.raises(RuntimeError), root.write_parent("n/e/w.txt", make_parents=True):
            raise RuntimeError

    exercise()  # warm up anything opened once (the fd of /dev/fd itself is listed too)
    before = len(os.listdir("/dev/fd"))
    exercise()
    assert len(os.listdir("/dev/fd")) == before
