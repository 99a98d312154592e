"""The scan of a project for private keys: what it finds, what it leaves alone, and that it
never waits on what it cannot read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from key_texts import body_lines, openssh_key, rsa_key  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED, Redactor, key_scan, known_keys
from rho_kernel.security.key_scan import ProjectKeys


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    known_keys.forget()
    yield
    known_keys.forget()


def _hidden(key: str, first: int = 3) -> bool:
    """Whether `cut -c1-16 key | sed -n FIRST,+1p` is hidden: too narrow and short for the
    shape of a key, it is found only by a key learned."""
    lines = "".join(line[:16] + "\n" for line in body_lines(key)[first - 1 : first + 1])
    return Redactor().redact(lines) == f"{REDACTED}\n{REDACTED}\n"


def test_keys_anywhere_in_the_project_are_learned(tmp_path: Path) -> None:
    (tmp_path / "certs" / "deep").mkdir(parents=True)
    (tmp_path / "certs" / "deep" / "server.key").write_text(rsa_key(21))
    (tmp_path / "id_ed25519").write_text(openssh_key(22))
    code = rsa_key(23).replace("\n", "\\n")
    (tmp_path / "settings.py").write_text(f'PRIVATE = "{code}"\n')  # a key in a string
    putty = ["PuTTY-User-Key-File-3: ssh-rsa", "Private-Lines: 4", *body_lines(rsa_key(24))[5:9]]
    (tmp_path / "deploy.ppk").write_text("\n".join(putty) + "\n")
    scan = ProjectKeys(tmp_path)
    scan.wait()
    assert scan.found == {"certs/deep/server.key", "id_ed25519", "settings.py", "deploy.ppk"}
    assert all(_hidden(key) for key in (rsa_key(21), openssh_key(22), rsa_key(23)))
    assert _hidden(rsa_key(24), 6)  # the PuTTY file's private lines


def test_links_fifos_protected_and_dependency_folders_are_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key.pem").write_text(rsa_key(31))
    project = tmp_path / "project"
    for folder in (".git", ".rho", "node_modules/pkg", "sub/.git"):
        (project / folder).mkdir(parents=True)
    (project / ".git" / "key.pem").write_text(rsa_key(32))
    (project / "node_modules" / "pkg" / "key.pem").write_text(rsa_key(33))
    (project / "sub" / ".git" / "key.pem").write_text(rsa_key(34))
    (project / "linked.pem").symlink_to(outside / "key.pem")
    (project / "linked").symlink_to(outside)
    os.mkfifo(project / "fifo.pem")  # opened, it would wait for a writer forever
    scan = ProjectKeys(project)
    scan.wait()
    assert scan.found == set()
    assert not known_keys.known()


def test_a_rescan_reads_only_what_changed_and_learns_a_new_key(tmp_path: Path) -> None:
    (tmp_path / "old.pem").write_text(rsa_key(41))
    scan = ProjectKeys(tmp_path)
    scan.wait()
    assert scan.found == {"old.pem"}
    scan.found.clear()
    scan.wait()  # nothing changed: no scan runs
    assert scan.found == set()
    (tmp_path / "new.pem").write_text(rsa_key(42))
    old = tmp_path / "old.pem"
    os.utime(old, ns=(old.stat().st_atime_ns, 1_000_000_000))  # long before the last scan
    scan.changed()
    scan.wait()
    assert "new.pem" in scan.found and _hidden(rsa_key(42))


def test_a_scan_stops_at_its_bounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(key_scan, "MAX_ENTRIES", 5)
    for index in range(20):
        (tmp_path / f"file{index:02}.txt").write_text("nothing here\n" * 10)
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "key.pem").write_text(rsa_key(51))
    scan = ProjectKeys(tmp_path)
    scan.wait()
    assert scan.found == set()


def test_one_scan_per_project_root(tmp_path: Path) -> None:
    assert key_scan.project_keys(tmp_path) is key_scan.project_keys(tmp_path)
    assert key_scan.project_keys(tmp_path) is not key_scan.project_keys(tmp_path / "x")


def test_a_slow_scan_spaces_the_rescans_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scan = ProjectKeys(tmp_path)
    scan.wait()
    scan._took = 1.0  # as if the project took a second to scan: the next waits ten
    (tmp_path / "new.pem").write_text(rsa_key(61))
    scan.changed()
    scan.wait()
    assert scan.found == set()  # not yet scanned again, still due
    monkeypatch.setattr(key_scan, "RESCAN_SPACING", 0)
    scan.wait()
    assert scan.found == {"new.pem"}
