"""The Landlock backend's own parts: the probe's choice of tier, what it says it cannot
enforce, the launcher's argv and document, and how the launcher fails (real runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rho_kernel.confinement import ConfinementPolicy, Landlock
from rho_kernel.confinement.landlock import TIERS, landlock_abi
from rho_kernel.confinement.landlock_launcher.document import Document
from rho_kernel.confinement.seccomp import FilterOptions, build_filter

needs_landlock = pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock")


def test_the_document_round_trips_and_refuses_anything_else() -> None:
    import marshal

    document = Document(
        root="/p", cwd="/p/src", namespaces="none", read_only=("/p/.git",), seccomp=b"\x01\x02"
    )
    assert Document.decode(document.encode()) == document
    fields = marshal.loads(bytes.fromhex(document.encode()))
    for change, said in (
        ({"version": 99}, "not a launcher document of this version"),
        ({"namespaces": "all"}, "unknown namespaces"),
        ({"surprise": 1}, "not a launcher document"),
    ):
        with pytest.raises(ValueError, match=said):
            Document.decode(marshal.dumps({**fields, **change}).hex())
    for garbage in ("{not json", "00ff", ""):
        with pytest.raises(ValueError, match="not a launcher document"):
            Document.decode(garbage)


def test_wrap_runs_the_launcher_isolated_with_the_policy_and_the_filter(tmp_path: Path) -> None:
    backend = Landlock(namespaces="none")
    policy = ConfinementPolicy(root=tmp_path, read_only=(tmp_path / ".git",), network=False)
    argv = backend.wrap(["echo", "hi"], policy, tmp_path)
    assert argv[:5] == [sys.executable, "-I", "-S", "-B", "-c"]
    assert argv[-3:] == ["--", "echo", "hi"]
    document = Document.decode(argv[6])
    assert (document.root, document.cwd, document.namespaces) == (str(tmp_path),) * 2 + ("none",)
    assert document.read_only == (str(tmp_path / ".git"),)
    # No network namespace in this tier: the filter refuses sockets too.
    assert document.seccomp == build_filter(FilterOptions(namespaces=True, network=True))
    assert document.tmpdir is not None and os.path.isdir(document.tmpdir)
    assert oct(os.stat(document.tmpdir).st_mode & 0o777) == "0o700"
    with_network = backend.wrap(["true"], ConfinementPolicy(root=tmp_path, network=True), tmp_path)
    assert Document.decode(with_network[6]).seccomp == build_filter(FilterOptions(namespaces=True))


def test_a_namespace_tier_leaves_the_network_to_its_namespace(tmp_path: Path) -> None:
    argv = Landlock(namespaces="user").wrap(["true"], ConfinementPolicy(root=tmp_path), tmp_path)
    document = Document.decode(argv[6])
    assert document.seccomp == build_filter(FilterOptions(namespaces=True))
    assert document.tmpdir is None
    assert document.inner_id == (65534 if os.geteuid() == 0 else None)


@needs_landlock
def test_the_probe_takes_the_first_tier_that_works(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[str] = []

    def attempt(self: Landlock, tier: str) -> str | None:
        tried.append(tier)
        return None if tier == "none" else f"{tier} namespaces are off here"

    monkeypatch.setattr(Landlock, "_try", attempt)
    backend = Landlock()
    assert backend.probe() is None
    assert tried == list(TIERS) and backend.namespaces == "none"


@needs_landlock
def test_a_probe_where_no_tier_works_names_each_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Landlock, "_try", lambda self, tier: f"{tier} failed")
    problem = Landlock().probe()
    assert problem is not None
    assert "user: user failed; mount: mount failed; none: none failed" in problem.reason
    assert "bubblewrap" in problem.fix


def test_without_landlock_the_probe_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import rho_kernel.confinement.landlock as module

    monkeypatch.setattr(module, "landlock_abi", lambda: 0)
    problem = Landlock().probe()
    assert problem is not None and "no Landlock" in problem.reason
    assert "install bubblewrap" in problem.fix and "lsm=" in problem.fix


@pytest.mark.parametrize(
    ("tier", "abi", "network", "expected"),
    [
        ("user", 7, False, []),
        ("none", 7, False, ["top folder", "/tmp is shared", "outlive", "127.0.0.1"]),
        ("none", 5, True, ["top folder", "/tmp is shared", "outlive", "docker.sock", "signal"]),
        ("user", 1, False, ["moved or linked"]),
    ],
)
def test_limits_name_what_this_machine_cannot_enforce(
    tier: str, abi: int, network: bool, expected: list[str]
) -> None:
    backend = Landlock()
    backend.namespaces, backend.abi = tier, abi  # type: ignore[assignment]
    said = backend.limits(network=network)
    if os.geteuid() == 0 and tier != "user":
        assert said[0].startswith("commands run as root without capabilities")
        said = said[1:]
    assert len(said) == len(expected), said
    for line, part in zip(said, expected, strict=True):
        assert part in line, (part, line)


@needs_landlock
@pytest.mark.parametrize("tier", ["user", "none"])
def test_the_launcher_fails_clearly_and_runs_nothing(tmp_path: Path, tier: str) -> None:
    backend = Landlock(namespaces=tier)  # type: ignore[arg-type]
    if backend.probe() is not None:
        pytest.skip(f"the {tier} tier cannot start here")
    argv = backend.wrap(["no-such-program-here"], ConfinementPolicy(root=tmp_path), tmp_path)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 127
    assert done.stderr == "rho sandbox: no-such-program-here: No such file or directory\n"
    broken = [*argv[:6], "{not json", "--", "touch", str(tmp_path / "ran")]
    done = subprocess.run(broken, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 126 and done.stderr.startswith("rho sandbox: unreadable document")
    assert not (tmp_path / "ran").exists()


@needs_landlock
def test_a_cwd_that_is_gone_stops_the_launch(tmp_path: Path) -> None:
    backend = Landlock(namespaces="none")
    argv = backend.wrap(["touch", "ran"], ConfinementPolicy(root=tmp_path), tmp_path / "gone")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 126 and "could not confine the command" in done.stderr
