"""Finding the workspace root above a crate: a repository's odd Cargo.toml files (a FIFO,
a huge file, nesting past all reason, not UTF-8) are not workspaces and never hang rho."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_tools_rust.crate import MAX_MANIFEST_BYTES, target_inside, workspace_root


def _crate(root: Path) -> Path:
    crate = root / "member"
    crate.mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "member"\n')
    return crate


def test_the_nearest_manifest_with_a_workspace_table_is_the_root(tmp_path: Path) -> None:
    crate = _crate(tmp_path)
    assert workspace_root(crate) == crate
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["member"]\n')
    assert workspace_root(crate) == tmp_path


@pytest.mark.parametrize(
    "content",
    [
        b"[workspace]\n# " + b"x" * MAX_MANIFEST_BYTES,  # too large to be read
        b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n[workspace]\n",  # nesting
        b"[workspace]\nname = '\xff'\n",  # not UTF-8
        b"workspace = 3\n",  # a key, not a table
    ],
    ids=["huge", "nested", "not-utf8", "not-a-table"],
)
def test_odd_manifests_above_are_not_workspaces(tmp_path: Path, content: bytes) -> None:
    crate = _crate(tmp_path)
    (tmp_path / "Cargo.toml").write_bytes(content)
    assert workspace_root(crate) == crate


def test_a_fifo_named_cargo_toml_is_skipped_without_waiting_for_a_writer(tmp_path: Path) -> None:
    crate = _crate(tmp_path)
    os.mkfifo(tmp_path / "Cargo.toml")
    assert workspace_root(crate) == crate  # a plain open would block here for ever


def test_a_member_crate_opened_as_the_project_gets_its_own_target(tmp_path: Path) -> None:
    crate = _crate(tmp_path)
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["member"]\n')
    assert target_inside({}, crate, crate) == {"CARGO_TARGET_DIR": str(crate / "target")}
    assert target_inside({"CARGO_TARGET_DIR": "/mine"}, crate, crate) == {
        "CARGO_TARGET_DIR": "/mine"
    }
    assert target_inside({}, crate, tmp_path) == {}  # the workspace is the project
