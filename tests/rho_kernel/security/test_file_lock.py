"""`locked_update`: read-modify-write of rho's stores by one process at a time, so that
concurrent changes (two `rho trust` runs, two grants) all survive."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rho_kernel.confinement import WritableGrants
from rho_kernel.security import TrustStore
from rho_kernel.security.file_lock import lock_file_for, locked_update
from rho_kernel.security.private_file import PrivateFileError

CONFIG = ".rho/config.toml"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def _roots(tmp_path: Path, count: int) -> list[Path]:
    roots = [tmp_path / f"project{index}" for index in range(count)]
    for root in roots:
        root.mkdir()
    return roots


def test_the_lock_file_is_private_and_kept(tmp_path: Path) -> None:
    store = tmp_path / "state" / "store.toml"
    with locked_update(store):
        store.write_text("x")
    lock = lock_file_for(store)
    assert lock == tmp_path / "state" / "store.toml.lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    assert stat.S_IMODE(lock.parent.stat().st_mode) == 0o700
    with locked_update(store):  # taken again: it was released
        pass


def test_a_lock_file_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    store = tmp_path / "state" / "store.toml"
    store.parent.mkdir(mode=0o700)
    lock_file_for(store).symlink_to(target)
    with pytest.raises(PrivateFileError, match="cannot lock"), locked_update(store):
        pass
    assert not target.exists()


def test_stale_trust_stores_keep_each_others_entries(home: Path, tmp_path: Path) -> None:
    first, second, third = _roots(tmp_path, 3)
    early, late = TrustStore.load(home), TrustStore.load(home)  # both read the empty store
    early.trust(first, CONFIG, b"a")
    late.trust(second, CONFIG, b"b")
    early.trust(third, CONFIG, b"c")
    assert {e.root for e in TrustStore.load(home).entries} == {
        str(first.resolve()),
        str(second.resolve()),
        str(third.resolve()),
    }
    # A revoke by a stale store removes only its project, and sees the others'.
    assert [e.root for e in late.revoke(first)] == [str(first.resolve())]
    assert len(late.entries) == 2 and len(TrustStore.load(home).entries) == 2


def test_stale_grant_stores_keep_each_others_grants(home: Path, tmp_path: Path) -> None:
    first, second = _roots(tmp_path, 2)
    early, late = WritableGrants.load(home), WritableGrants.load(home)
    early.grant(first, ["~/a"])
    late.grant(second, ["~/b"])
    early.grant(first, ["~/c"])
    again = WritableGrants.load(home)
    assert again.granted(first) == {"~/a", "~/c"} and again.granted(second) == {"~/b"}


# Every process waits for the barrier pipe to close, then records its grant or trust.
_WORKER = """
import os, sys
from pathlib import Path
from rho_kernel.confinement import WritableGrants
from rho_kernel.security import TrustStore
barrier, kind, home, root = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
grants, store = WritableGrants.load(home), TrustStore.load(home)
os.read(barrier, 1)
if kind == "grant":
    grants.grant(root, ["~/cache", root.name])
else:
    store.trust(root, ".rho/config.toml", root.name.encode())
"""


@pytest.mark.parametrize("kind", ["grant", "trust"])
def test_concurrent_processes_keep_every_change(home: Path, tmp_path: Path, kind: str) -> None:
    roots = _roots(tmp_path, 12)
    barrier, release = os.pipe()
    try:
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", _WORKER, str(barrier), kind, str(home), str(root)],
                pass_fds=(barrier,),
                stderr=subprocess.PIPE,
            )
            for root in roots
        ]
    finally:
        os.close(barrier)
        os.close(release)
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    if kind == "grant":
        grants = WritableGrants.load(home)
        assert all(grants.granted(root) == {"~/cache", root.name} for root in roots)
    else:
        trusted = {(e.root, e.sha256) for e in TrustStore.load(home).entries}
        assert len(trusted) == len(roots)
        assert all(
            TrustStore.load(home).is_trusted(root, CONFIG, root.name.encode()) for root in roots
        )
