"""The Landlock backend, proved by attack on the real kernel: in every tier this machine offers
(its own user namespace, a mount namespace only, Landlock and seccomp alone), as root and as
a user (`nobody`, through `setpriv`), a confined command tries every way out of its policy
(`landlock_attacks.ATTACKS`) and every one fails, while ordinary work still succeeds."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from landlock_attacks import (  # type: ignore[import-not-found]
    ALLOWED,
    ATTACKS,
    MOUNTED_ONLY,
    Places,
    outcome,
    script,
)

from rho_kernel.confinement import ConfinementPolicy, build_policy
from rho_kernel.confinement.landlock import Landlock, landlock_abi
from rho_kernel.confinement.landlock_launcher.boot import FOLDER

AS_ROOT = os.geteuid() == 0
NOBODY = 65534
needs_landlock = pytest.mark.skipif(
    landlock_abi() < 1 or sys.platform != "linux", reason="this kernel has no Landlock"
)
pytestmark = needs_landlock
#: (tier, identity) pairs: a root rho's command in every tier; a user's in the tiers a user
#: can have (a mount namespace without a user namespace needs root).
CASES = [
    pytest.param((tier, who), id=f"{tier}-as-{who}")
    for who in ("root", "user")
    for tier in ("user", "mount", "none")
    if not (who == "user" and tier == "mount")
]


def _user_python() -> str:
    """A Python `nobody` can run (rho's own may sit in root's home)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", sys.executable):
        real = os.path.realpath(candidate)
        if os.path.exists(real) and _world_reachable(real):
            return real
    pytest.skip("no Python here that a user other than root could run")


def _world_reachable(path: str) -> bool:
    parts = Path(path).parents
    return all(os.stat(p).st_mode & 0o001 for p in parts) and bool(os.stat(path).st_mode & 0o005)


class Run:
    """One tier and identity: builds the project, the places and the confined runs."""

    def __init__(self, base: Path, tier: str, who: str) -> None:
        if who == "user" and not AS_ROOT:
            who = "self"  # the suite is a user already
        if who == "root" and not AS_ROOT:
            pytest.skip("needs root (the suite runs as a user)")
        self.tier, self.who, self.base = tier, who, base
        self.project = base / "project"
        self.outside = base / "outside"
        self.home = base / "home"
        self.python = os.path.realpath(sys.executable) if who == "root" else _user_python()
        self.folder = FOLDER
        if who == "user":
            self.folder = str(base / "launcher")
            shutil.copytree(
                Path(FOLDER) / "landlock_launcher", Path(self.folder) / "landlock_launcher"
            )
        self._make_tree()
        self.backend = Landlock(namespaces=tier, python=self.python, folder=self.folder)  # type: ignore[arg-type]
        self.backend.namespaces = tier  # type: ignore[assignment]
        self.backend.abi = landlock_abi()
        if who == "user":  # rho's temp directory is the user's own
            tmp = base / "commands-tmp"
            tmp.mkdir(mode=0o700)
            os.chown(tmp, NOBODY, NOBODY)
            self.backend._tmpdir = str(tmp)

    def _make_tree(self) -> None:
        project, home = self.project, self.home
        for folder in (
            project / ".git" / "hooks",
            project / "sub" / ".git",
            project / ".rho",
            project / "src",
            project / "m",
            project / "locked" / ".git",
            home / ".ssh",
            home / ".rho" / "sessions",
            self.outside,
        ):
            folder.mkdir(parents=True, exist_ok=True)
        (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (project / ".git" / "config").write_text("[core]\n")
        (project / "sub" / ".git" / "config").write_text("[core]\n")
        (project / "locked" / ".git" / "config").write_text("[core]\n")
        (project / ".rho" / "config.toml").write_text("")
        (project / "README").write_text("read me\n")
        (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
        (home / ".rho" / "sessions" / "s.jsonl").write_text("{}\n")
        if self.who == "user":
            for path in [self.base, *self.base.rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
                path.chmod(0o755 if path.is_dir() else 0o644)
            self.outside.chmod(0o777)
        (project / "locked").chmod(0)

    def run(
        self, argv: list[str], policy: ConfinementPolicy | None = None
    ) -> subprocess.CompletedProcess[str]:
        policy = policy or build_policy(self.project, home=self.home)
        wrapped = self.backend.wrap(argv, policy, self.project)
        if self.who == "user":
            wrapped = [
                "setpriv",
                "--reuid",
                str(NOBODY),
                "--regid",
                str(NOBODY),
                "--clear-groups",
                *wrapped,
            ]
        return subprocess.run(wrapped, capture_output=True, text=True, timeout=60, check=False)

    def works_here(self) -> None:
        """Skip, naming why, when this tier cannot start here for this identity."""
        done = self.run(["true"])
        if done.returncode != 0:
            pytest.skip(
                f"the {self.tier} tier cannot start here as {self.who}: {done.stderr.strip()}"
            )

    def cleanup(self) -> None:
        (self.project / "locked").chmod(0o755)


@pytest.fixture(params=CASES)
def case(request: pytest.FixtureRequest, outside_tmp: Path) -> Iterator[Run]:
    tier, who = request.param
    if who == "user" and AS_ROOT and shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is missing: cannot run as a user")
    outside_tmp.chmod(0o755)
    run = Run(outside_tmp, tier, who)
    try:
        run.works_here()
        yield run
    finally:
        run.cleanup()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server
    server.close()


def _places(run: Run, listener: socket.socket, denied_socket: Path) -> Places:
    return Places(
        project=run.project,
        outside=run.outside,
        home=run.home,
        python=run.python,
        rho_pid=os.getpid(),
        listener_port=listener.getsockname()[1],
        denied_socket=denied_socket,
    )


def _denied_socket(run: Run) -> Iterator[Path]:
    folder = run.base / "run"
    folder.mkdir()
    path = folder / "daemon.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    path.chmod(0o777)
    try:
        yield path
    finally:
        server.close()


def test_every_attack_fails_and_ordinary_work_goes_on(case: Run, listener: socket.socket) -> None:
    sockets = _denied_socket(case)
    denied = next(sockets)
    try:
        policy = build_policy(case.project, home=case.home, extra_read_deny=[str(denied)])
        places = _places(case, listener, denied)
        done = case.run(["sh", "-c", script(places, ATTACKS + ALLOWED + MOUNTED_ONLY)], policy)
    finally:
        next(sockets, None)
    found = outcome(done.stdout)
    assert set(found) == {label for label, _ in ATTACKS + ALLOWED + MOUNTED_ONLY}, done.stderr
    escaped = [label for label, _ in ATTACKS if found[label]]
    assert escaped == [], (escaped, done.stdout)
    broken = [label for label, _ in ALLOWED if not found[label]]
    assert broken == [], (broken, done.stdout)
    mounted = case.tier != "none"
    assert {label: found[label] for label, _ in MOUNTED_ONLY} == {
        label: mounted for label, _ in MOUNTED_ONLY
    }
    assert not (case.outside / "planted").exists() and not (case.outside / "fsmon").exists()
    assert (case.project / ".git" / "config").read_text() == "[core]\n"
    assert not (case.project / ".git" / "hooks" / "pre-commit").exists()


def test_no_capability_and_the_uid_each_tier_gives(case: Run) -> None:
    done = case.run(
        ["sh", "-c", "grep -E '^Cap(Eff|Prm|Bnd|Amb):|^NoNewPrivs:' /proc/self/status; id -u"]
    )
    lines = done.stdout.split()
    # A user's launcher outside a user namespace cannot empty the bounding set (it needs a
    # capability to); with no_new_privs nothing can raise one from it anyway.
    empties_bounding = case.tier != "none" or case.who == "root"
    names = ("CapEff:", "CapPrm:", "CapAmb:") + (("CapBnd:",) if empties_bounding else ())
    for name in names:
        assert lines[lines.index(name) + 1] == "0000000000000000", done.stdout
    assert lines[lines.index("NoNewPrivs:") + 1] == "1"
    uid = int(lines[-1])
    if case.who == "root":
        assert uid == (NOBODY if case.tier == "user" else 0)
    else:
        assert uid == os.geteuid() if case.who == "self" else uid == NOBODY


def test_a_background_process_dies_with_the_command_where_namespaces_work(case: Run) -> None:
    marker = f"rho-landlock-orphan-{os.getpid()}-{case.tier}"
    line = (
        f"{case.python} -c 'import time; time.sleep(600)' {marker} >/dev/null 2>&1 & echo started"
    )
    done = case.run(["sh", "-c", line])
    assert done.stdout == "started\n", done.stderr
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker in _cmdline(p)]
    try:
        assert (left == []) == (case.tier != "none"), left
    finally:
        for process in left:
            with contextlib.suppress(OSError):
                os.kill(int(process.name), 9)


def _cmdline(process: Path) -> str:
    try:
        return (process / "cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def test_the_command_sees_only_its_own_processes_and_a_private_tmp(case: Run) -> None:
    with tempfile.NamedTemporaryFile(dir="/tmp", prefix="rho-landlock-visible-") as visible:
        name = visible.name
        done = case.run(
            ["sh", "-c", f"ls /proc | grep -c '^[0-9]'; test -e {name} && echo seen; echo $TMPDIR"]
        )
    count, *rest = done.stdout.split()
    if case.tier == "none":
        assert int(count) > 3 and rest[-1] != "/tmp"  # the host's processes; its own TMPDIR
    else:
        assert int(count) <= 4 and rest == ["/tmp"], done.stdout  # its pid 1, sh, ls, grep


def test_the_attacks_are_real_without_the_sandbox(
    outside_tmp: Path, listener: socket.socket
) -> None:
    """Unconfined, the same script gets out (so a failure above is the sandbox's doing)."""
    if not AS_ROOT:
        pytest.skip("needs root (the suite runs as a user)")
    run = Run(outside_tmp, "none", "root")
    sockets = _denied_socket(run)
    denied = next(sockets)
    try:
        places = _places(run, listener, denied)
        done = subprocess.run(
            ["sh", "-c", script(places, ATTACKS)],
            cwd=run.project,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        next(sockets, None)
        run.cleanup()
    found = outcome(done.stdout)
    real = {"write-outside", "git-config", "git-hook-new", "read-ssh", "list-rho", "tcp-host"}
    real |= {"denied-socket", "signal-rho", "read-rho-environ", "nested-git", "git-rename"}
    assert {label for label in real if not found[label]} == set(), done.stdout


@pytest.mark.parametrize("tier", ["user", "mount", "none"])
def test_no_set_id_file_in_any_tier(outside_tmp: Path, tier: str) -> None:
    """The seccomp filter holds under the launcher as under bubblewrap (root: such a file
    would be owned by host root)."""
    from setid_attacks import assert_no_setid, setid_script  # type: ignore[import-not-found]

    if not AS_ROOT:
        pytest.skip("needs root (the suite runs as a user)")
    project = outside_tmp / "plain-project"  # no .git: the none tier lets it create at the top
    outside = outside_tmp / "setid-outside"
    project.mkdir()
    outside.mkdir()
    backend = Landlock(namespaces=tier)  # type: ignore[arg-type]
    if backend.probe() is not None:
        pytest.skip(f"the {tier} tier cannot start here: {backend.probe()}")
    argv = backend.wrap(
        ["sh", "-c", setid_script(project, outside)], ConfinementPolicy(root=project), project
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert_no_setid(done.stdout, project)
