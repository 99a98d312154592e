"""`WritableGrants`: the writable paths a user granted, per project, in a private file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from rho_kernel.confinement import GrantError, WritableGrants
from rho_kernel.confinement.grants import GRANTS_NAME


def store_path(home: Path) -> Path:
    return home / ".rho" / GRANTS_NAME


def test_a_missing_store_is_empty(home: Path, project: Path) -> None:
    grants = WritableGrants.load(home)
    assert grants.path == store_path(home) and grants.granted(project) == set()


def test_grants_are_recorded_and_read_back_from_disk(home: Path, project: Path) -> None:
    WritableGrants.load(home).grant(project, ["~/.cache/pip", '/odd "path"\\x'])
    WritableGrants.load(home).grant(project, ["~/.cache/pip", "build"])
    again = WritableGrants.load(home)
    assert again.granted(project) == {"~/.cache/pip", '/odd "path"\\x', "build"}
    assert store_path(home).read_text().count("[[grants]]") == 3


def test_grants_belong_to_their_project_by_canonical_root(
    home: Path, project: Path, outside_tmp: Path
) -> None:
    other = outside_tmp / "other"
    other.mkdir()
    link = outside_tmp / "link"
    link.symlink_to(project)
    store = WritableGrants.load(home)
    store.grant(link, ["~/.cargo"])
    store.grant(other, ["~/.npm"])
    again = WritableGrants.load(home)
    assert again.granted(project) == {"~/.cargo"}
    assert again.granted(other) == {"~/.npm"}


def test_the_store_is_private(home: Path, project: Path) -> None:
    WritableGrants.load(home).grant(project, ["~/.cache"])
    assert stat.S_IMODE(store_path(home).stat().st_mode) == 0o600
    assert stat.S_IMODE(store_path(home).parent.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "data", [b"[[grants]\nroot = 1\n", b"\xff\xfe"], ids=["bad-toml", "not-utf8"]
)
def test_an_unreadable_store_is_a_warning_and_counts_as_empty(
    home: Path, project: Path, data: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    store_path(home).parent.mkdir()
    store_path(home).write_bytes(data)
    assert WritableGrants.load(home).granted(project) == set()
    warned = capsys.readouterr().err
    assert warned.startswith(f"rho: warning: {store_path(home)}: cannot be read (")
    assert warned.endswith("); no writable path counts as granted\n")


def test_a_store_of_the_wrong_shape_counts_as_empty(home: Path, project: Path) -> None:
    store_path(home).parent.mkdir()
    store_path(home).write_text(f'grants = "{project}"\n')
    assert WritableGrants.load(home).granted(project) == set()


def test_malformed_entries_are_skipped_and_the_good_ones_count(home: Path, project: Path) -> None:
    store_path(home).parent.mkdir()
    store_path(home).write_text(
        f'[[grants]]\nroot = "{project}"\npath = "good"\n'
        f'[[grants]]\nroot = "{project}"\npath = 7\n'
        '[[grants]]\npath = "no-root"\n'
    )
    assert WritableGrants.load(home).granted(project) == {"good"}


def test_an_unwritable_store_raises_but_the_grant_holds_for_the_process(
    home: Path, project: Path
) -> None:
    (home / ".rho").write_text("a file where the directory should be\n")
    store = WritableGrants.load(home)
    with pytest.raises(GrantError, match=r"\.rho is not a plain directory"):
        store.grant(project, ["~/.cache"])
    assert store.granted(project) == {"~/.cache"}
    store.grant(project, ["~/.cache"])  # already granted: nothing to save, nothing raised


def test_a_path_that_cannot_be_recorded_raises(home: Path, project: Path) -> None:
    with pytest.raises(GrantError, match="not valid UTF-8"):
        WritableGrants.load(home).grant(project, ["/bad\udcff"])
