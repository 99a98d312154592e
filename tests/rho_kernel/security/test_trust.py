"""The trust store: per-file SHA-256 trust, private atomic writes, malformed means empty."""

from __future__ import annotations

import hashlib
import os
import stat
import tomllib
from pathlib import Path

import pytest

from rho_kernel.security import (
    TrustEntry,
    TrustError,
    TrustStore,
    file_digest,
    trust_store_path,
)

CONFIG = ".rho/config.toml"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def _load(home: Path) -> tuple[TrustStore, list[str]]:
    warnings: list[str] = []
    return TrustStore.load(home, warn=warnings.append), warnings


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# ── trusting ────────────────────────────────────────────────────────────────


def test_missing_store_is_empty_without_warning(home: Path) -> None:
    store, warnings = _load(home)
    assert store.entries == () and warnings == []
    assert store.path == home / ".rho" / "trusted_projects.toml" == trust_store_path(home)


def test_trusted_file_matches_only_its_exact_bytes(home: Path, root: Path) -> None:
    store, _ = _load(home)
    entry = store.trust(root, CONFIG, b"a = 1\n")
    assert entry == TrustEntry(str(root.resolve()), CONFIG, hashlib.sha256(b"a = 1\n").hexdigest())
    reloaded, warnings = _load(home)
    assert warnings == []
    assert reloaded.entries == (entry,)
    assert reloaded.is_trusted(root, CONFIG, b"a = 1\n")
    assert not reloaded.is_trusted(root, CONFIG, b"a = 1\n ")
    assert not reloaded.is_trusted(root, "AGENTS.md", b"a = 1\n")
    assert not reloaded.is_trusted(root.parent, CONFIG, b"a = 1\n")


def test_store_file_is_the_documented_toml(home: Path, root: Path) -> None:
    TrustStore.load(home).trust(root, CONFIG, b"x")
    table = tomllib.loads(trust_store_path(home).read_text())
    assert table == {
        "entries": [{"root": str(root.resolve()), "file": CONFIG, "sha256": file_digest(b"x")}]
    }


def test_retrusting_replaces_the_entry_and_other_files_stay(home: Path, root: Path) -> None:
    store, _ = _load(home)
    store.trust(root, CONFIG, b"old")
    store.trust(root, "AGENTS.md", b"agents")
    store.trust(root, CONFIG, b"new")
    reloaded, _ = _load(home)
    assert [(e.file, e.sha256) for e in reloaded.entries] == [
        ("AGENTS.md", file_digest(b"agents")),
        (CONFIG, file_digest(b"new")),
    ]
    assert not reloaded.is_trusted(root, CONFIG, b"old")


def test_root_is_recorded_canonically(home: Path, root: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    store, _ = _load(home)
    assert store.trust(alias / "sub" / "..", CONFIG, b"x").root == str(root.resolve())
    assert store.is_trusted(root, CONFIG, b"x")
    assert [e.root for e in store.entries_for(root)] == [str(root.resolve())]


def test_revoke_forgets_every_file_of_the_root_only(home: Path, root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    store, _ = _load(home)
    store.trust(root, CONFIG, b"x")
    store.trust(root, "AGENTS.md", b"y")
    store.trust(other, CONFIG, b"z")
    removed = store.revoke(root)
    assert [e.file for e in removed] == [CONFIG, "AGENTS.md"]
    reloaded, _ = _load(home)
    assert [e.root for e in reloaded.entries] == [str(other.resolve())]
    assert reloaded.revoke(root) == []


def test_odd_root_paths_round_trip(home: Path, tmp_path: Path) -> None:
    odd = tmp_path / 'we"ird\\ name\nwith\ttabs \u00e9\u2603'
    odd.mkdir()
    TrustStore.load(home).trust(odd, CONFIG, b"x")
    reloaded, warnings = _load(home)
    assert warnings == [] and reloaded.is_trusted(odd, CONFIG, b"x")


def test_undecodable_root_cannot_be_recorded(home: Path, tmp_path: Path) -> None:
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/bad-\xff"))
    odd.mkdir()
    store, _ = _load(home)
    with pytest.raises(TrustError, match="not valid UTF-8"):
        store.trust(odd, CONFIG, b"x")
    assert not trust_store_path(home).exists()


@pytest.mark.parametrize("rel", ["", "/etc/passwd", "../x", "a/../../x", "a\\b"])
def test_file_must_be_a_plain_relative_path(home: Path, root: Path, rel: str) -> None:
    with pytest.raises(ValueError, match="relative"):
        TrustStore.load(home).trust(root, rel, b"x")


# ── writing safely ──────────────────────────────────────────────────────────


def test_store_is_0600_in_a_0700_directory(home: Path, root: Path) -> None:
    old = os.umask(0o022)
    try:
        TrustStore.load(home).trust(root, CONFIG, b"x")
    finally:
        os.umask(old)
    assert _mode(trust_store_path(home)) == 0o600
    assert _mode(home / ".rho") == 0o700


def test_existing_rho_directory_is_made_private(home: Path, root: Path) -> None:
    (home / ".rho").mkdir(mode=0o755)
    os.chmod(home / ".rho", 0o755)
    TrustStore.load(home).trust(root, CONFIG, b"x")
    assert _mode(home / ".rho") == 0o700


def test_write_leaves_no_temporary_file(home: Path, root: Path) -> None:
    store, _ = _load(home)
    store.trust(root, CONFIG, b"x")
    store.trust(root, CONFIG, b"y")
    # Only the store and its lock file, which is kept so that every writer locks one file.
    assert sorted(p.name for p in (home / ".rho").iterdir()) == [
        "trusted_projects.toml",
        "trusted_projects.toml.lock",
    ]


def test_symlink_at_the_store_path_is_replaced_not_followed(
    home: Path, root: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.toml"
    target.write_text("keep me\n")
    (home / ".rho").mkdir()
    trust_store_path(home).symlink_to(target)
    store, _ = _load(home)
    store.trust(root, CONFIG, b"x")
    assert target.read_text() == "keep me\n"
    assert not trust_store_path(home).is_symlink()
    assert _mode(trust_store_path(home)) == 0o600


def test_symlinked_rho_directory_is_refused(home: Path, root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / ".rho").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(TrustError, match="not a plain directory"):
        TrustStore.load(home).trust(root, CONFIG, b"x")
    assert list(elsewhere.iterdir()) == []


# ── malformed stores ────────────────────────────────────────────────────────

VALID = f'[[entries]]\nroot = "/p"\nfile = "{CONFIG}"\nsha256 = "{"a" * 64}"\n'


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[[entries]\n", "invalid TOML"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b"entries = 3\n", "'entries' must be an array of tables"),
        (b"entries = [1]\n", "entries[0] is not a table"),
        (VALID.encode() + b'[[entries]]\nroot = "/p"\nfile = "x"\n', "entries[1].sha256"),
        (VALID.replace("a" * 64, "A" * 64).encode(), "64 lower-case hex digits"),
        (VALID.replace('"/p"', "1").encode(), "entries[0].root must be a non-empty string"),
    ],
)
def test_malformed_store_warns_and_counts_as_empty(
    home: Path, content: bytes, problem: str
) -> None:
    path = trust_store_path(home)
    path.parent.mkdir()
    path.write_bytes(content)
    store, warnings = _load(home)
    assert store.entries == ()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path}: ") and problem in warnings[0]
    assert "no project counts as trusted" in warnings[0]


def test_unreadable_store_warns_and_counts_as_empty(home: Path) -> None:
    trust_store_path(home).mkdir(parents=True)
    store, warnings = _load(home)
    assert store.entries == () and "cannot be read" in warnings[0]


def test_trusting_over_a_malformed_store_rewrites_it(home: Path, root: Path) -> None:
    path = trust_store_path(home)
    path.parent.mkdir()
    path.write_text("not toml at all [")
    store, _ = _load(home)
    store.trust(root, CONFIG, b"x")
    reloaded, warnings = _load(home)
    assert warnings == [] and reloaded.is_trusted(root, CONFIG, b"x")


def test_default_warning_goes_to_stderr(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trust_store_path(home).parent.mkdir()
    trust_store_path(home).write_text("[")
    TrustStore.load(home)
    assert capsys.readouterr().err.startswith(f"rho: warning: {trust_store_path(home)}: ")
