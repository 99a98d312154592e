"""rho's state directory (`~/.rho`) is never a sandbox root and never reached through one:
by name, through links, `..`, absolute paths, a symlinked state directory, a bind mount, and
while a link into it is swapped in and out."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.security import ProtectedPathError, SandboxError, SandboxRoot
from rho_kernel.security.state_fence import StateFence

SECRET = "SESSION-OF-ANOTHER-PROJECT"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home directory whose `.rho` holds a config and another project's session."""
    path = tmp_path / "home"
    sessions = path / ".rho" / "sessions" / "0123456789abcdef"
    sessions.mkdir(parents=True)
    (sessions / "1_s.jsonl").write_text(SECRET + "\n")
    (path / ".rho" / "config.toml").write_text('[sandbox]\nmode = "strict"\n')
    (path / "notes.txt").write_text("ordinary\n")
    return path


def _root(home: Path, root: Path | None = None) -> SandboxRoot:
    return SandboxRoot(root or home, state_dir=home / ".rho")


def _refused(action: object) -> str:
    assert callable(action)
    with pytest.raises(SandboxError) as caught:
        result = action()
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return str(caught.value)


ATTACKS = [
    ".rho/config.toml",
    ".rho/sessions/0123456789abcdef/1_s.jsonl",
    "./.rho/config.toml",
    "notes/../.rho/config.toml",
    ".RHO/config.toml",  # a case-insensitive file system would find it; here: not found
    "link-to-state/config.toml",
    "link-to-sessions/0123456789abcdef/1_s.jsonl",
    "deep/link-up/.rho/config.toml",
]


@pytest.mark.parametrize("path", ATTACKS)
def test_no_path_below_the_home_root_reads_the_state_directory(
    home: Path, path: str, backend: str
) -> None:
    (home / "link-to-state").symlink_to(home / ".rho")
    (home / "link-to-sessions").symlink_to("./.rho/sessions")
    (home / "deep").mkdir()
    (home / "deep" / "link-up").symlink_to("..")
    (home / "notes").mkdir()
    root = _root(home)
    with pytest.raises(SandboxError) as caught:
        root.open_read(path).close()
    if ".RHO" not in path:
        assert "rho's own state directory" in str(caught.value)
    with pytest.raises(SandboxError):
        root.open_read(str(home / path)).close()  # the same path, absolute


@pytest.mark.parametrize("path", [".rho", ".rho/sessions", "link", "link/sessions", "."])
def test_the_state_directory_cannot_be_listed_or_validated(
    home: Path, path: str, backend: str
) -> None:
    (home / "link").symlink_to(".rho")
    root = _root(home)
    if path == ".":
        assert root.validate(".") == home.resolve()  # the home root itself is fine
        root.open_dir(".").close()
        return
    assert "rho's own state directory" in _refused(lambda: root.open_dir(path))
    assert "rho's own state directory" in _refused(lambda: root.validate(path))
    missing = _refused(lambda: root.validate(path + "/x"))
    if backend == "dir-fds":  # path checks say first that it does not exist
        assert "rho's own state directory" in missing


@pytest.mark.parametrize("path", [".rho/config.toml", "link/config.toml", "link/new.toml"])
def test_writes_into_the_state_directory_are_refused(home: Path, path: str, backend: str) -> None:
    (home / "link").symlink_to(".rho")
    root = _root(home)
    with pytest.raises((ProtectedPathError, SandboxError)):
        root.write_parent(path, make_parents=True).close()
    assert (home / ".rho" / "config.toml").read_text() == '[sandbox]\nmode = "strict"\n'
    assert not (home / ".rho" / "new.toml").exists()


def test_a_state_directory_that_is_a_link_to_a_plain_folder_is_fenced(
    tmp_path: Path, backend: str
) -> None:
    """`~/.rho` → `~/dotfiles/rho`: the real folder has an ordinary name, and is still refused."""
    home = tmp_path / "home"
    real = home / "dotfiles" / "rho"
    real.mkdir(parents=True)
    (real / "config.toml").write_text("x = 1\n")
    (home / ".rho").symlink_to(real)
    root = SandboxRoot(home, state_dir=home / ".rho")
    for path in ("dotfiles/rho/config.toml", "dotfiles/./rho/config.toml"):
        assert "rho's own state directory" in _refused(lambda p=path: root.open_read(p))
    assert "rho's own state directory" in _refused(lambda: root.open_dir("dotfiles/rho"))
    root.open_dir("dotfiles").close()


def test_a_state_directory_created_after_the_root_is_fenced_from_then_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    root = SandboxRoot(home, state_dir=home / ".rho")
    (home / ".rho" / "sessions").mkdir(parents=True)
    (home / ".rho" / "sessions" / "s.jsonl").write_text(SECRET)
    assert "rho's own state directory" in _refused(lambda: root.open_read(".rho/sessions/s.jsonl"))


@pytest.mark.parametrize(
    "where", [".rho", ".rho/sessions", ".rho/sessions/0123456789abcdef", "link", "link/sessions"]
)
def test_a_root_in_the_state_directory_is_refused(home: Path, where: str, backend: str) -> None:
    (home / "link").symlink_to(".rho")
    with pytest.raises(SandboxError) as caught:
        _root(home, home / where)
    message = str(caught.value)
    assert "rho's own state directory" in message and "--root" in message


def test_a_root_elsewhere_and_the_home_root_are_fine(home: Path, tmp_path: Path) -> None:
    _root(home)
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    assert _root(home, elsewhere).open_dir(".")


@pytest.fixture
def bind_mounted(home: Path, tmp_path: Path) -> Iterator[Path]:
    """The home's `.rho/sessions` bind-mounted inside a project (needs CAP_SYS_ADMIN)."""
    project = tmp_path / "project"
    target = project / "mounted"
    target.mkdir(parents=True)
    result = subprocess.run(
        ["mount", "--bind", str(home / ".rho" / "sessions"), str(target)],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip("bind mounts need CAP_SYS_ADMIN")
    try:
        yield project
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


def test_a_bind_mount_of_the_state_directory_is_refused(home: Path, bind_mounted: Path) -> None:
    root = _root(home, bind_mounted)
    assert "rho's own state directory" in _refused(
        lambda: root.open_read("mounted/0123456789abcdef/1_s.jsonl")
    )
    assert "rho's own state directory" in _refused(lambda: root.open_dir("mounted"))
    with pytest.raises(SandboxError):
        _root(home, bind_mounted / "mounted")


def test_a_link_swapped_into_the_state_directory_never_leaks(home: Path) -> None:
    """`d` flips between a plain folder and a link to `~/.rho/sessions/…` while it is read;
    every read returns the plain file or is refused, never the session."""
    plain = home / "plain"
    plain.mkdir()
    (plain / "1_s.jsonl").write_text("plain\n")
    link = home / "link"
    link.symlink_to(".rho/sessions/0123456789abcdef")
    root = _root(home)
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            os.rename(plain, home / "d")
            os.rename(home / "d", plain)
            os.rename(link, home / "d")
            os.rename(home / "d", link)

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    try:
        for _ in range(3000):
            try:
                with root.open_read("d/1_s.jsonl") as handle:
                    assert handle.read() == b"plain\n"
            except SandboxError:
                continue
    finally:
        stop.set()
        swapper.join()


def test_the_fence_follows_the_state_directory(tmp_path: Path) -> None:
    state = tmp_path / ".rho"
    fence = StateFence(state)
    assert fence.identities() == frozenset() and not fence.encloses(tmp_path)
    (state / "sessions").mkdir(parents=True)
    info = os.stat(state / "sessions")
    assert (info.st_dev, info.st_ino) in fence.identities()
    assert fence.encloses(state / "sessions") and not fence.encloses(tmp_path)
