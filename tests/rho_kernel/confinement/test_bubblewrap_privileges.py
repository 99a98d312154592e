"""No privileges inside bubblewrap, whatever uid rho runs as: the options that ensure it, and
real confined runs that try to get out (these tests run as root in CI, which is the case
that matters: bwrap skips the user namespace of `--unshare-all` for root)."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from rho_kernel.confinement import Bubblewrap, ConfinedLauncher, ConfinementPolicy, build_policy
from rho_kernel.confinement import bubblewrap as module
from rho_kernel.confinement.bubblewrap import UNPRIVILEGED_ID, bwrap_options
from rho_kernel.process import ProcessResult, find_shell, run_process
from rho_kernel.security import SandboxRoot

SH = find_shell(None)
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)


def fake_bwrap(directory: Path, help_text: str) -> str:
    """A `bwrap` whose `--help` prints `help_text` and which counts its calls."""
    script = directory / "bwrap"
    script.write_text(f"#!/bin/sh\necho call >> {directory}/calls\ncat <<'EOF'\n{help_text}\nEOF\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


# ── the options ─────────────────────────────────────────────────────────────


def test_disable_userns_is_used_where_bwrap_lists_it_and_the_help_is_read_once(
    tmp_path: Path,
) -> None:
    bwrap = fake_bwrap(
        tmp_path,
        "usage: bwrap [OPTIONS...]\n    --unshare-user   Create new user namespace\n"
        "    --disable-userns   Disable further use of user namespaces inside sandbox",
    )
    policy = ConfinementPolicy(root=tmp_path)
    first = Bubblewrap(bwrap).wrap(["true"], policy, tmp_path)
    second = Bubblewrap(bwrap).wrap(["true"], policy, tmp_path)
    assert first == second
    assert first[4:8] == ["--unshare-user", "--cap-drop", "ALL", "--disable-userns"]
    assert (tmp_path / "calls").read_text() == "call\n"  # cached per executable


def test_an_older_bwrap_without_disable_userns_still_drops_everything(tmp_path: Path) -> None:
    bwrap = fake_bwrap(tmp_path, "usage: bwrap\n    --unshare-user   Create new user namespace\n")
    argv = Bubblewrap(bwrap).wrap(["true"], ConfinementPolicy(root=tmp_path), tmp_path)
    assert "--disable-userns" not in argv
    assert argv[4:7] == ["--unshare-user", "--cap-drop", "ALL"]
    # A mention inside a description is not the option being listed.
    other = tmp_path / "other"
    other.mkdir()
    bwrap = fake_bwrap(other, "    --unshare-user   also see --disable-userns in 0.8\n")
    assert "--disable-userns" not in bwrap_options(bwrap)


def test_an_unreadable_help_means_no_optional_options(tmp_path: Path) -> None:
    assert bwrap_options(str(tmp_path / "missing-bwrap")) == frozenset()


@pytest.mark.parametrize(
    ("euid", "uid", "mapped"), [(0, 0, True), (1000, 1000, False), (0, 1000, True)]
)
def test_root_runs_commands_as_an_unprivileged_uid_others_keep_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, euid: int, uid: int, mapped: bool
) -> None:
    monkeypatch.setattr(module.os, "geteuid", lambda: euid)
    monkeypatch.setattr(module.os, "getuid", lambda: uid)
    argv = Bubblewrap("/nonexistent/bwrap").wrap(
        ["true"], ConfinementPolicy(root=tmp_path), tmp_path
    )
    ids = ["--uid", str(UNPRIVILEGED_ID), "--gid", str(UNPRIVILEGED_ID)]
    assert (argv[7:11] == ids) is mapped
    assert ("--uid" in argv) is mapped
    assert argv.index("--unshare-user") < argv.index("--ro-bind")


# ── real confined runs ──────────────────────────────────────────────────────


async def confined(script: str, project: Path, home: Path) -> ProcessResult:
    launcher = ConfinedLauncher(Bubblewrap(), build_policy(project, home=home))
    return await run_process(SH.argv(script), root=SandboxRoot(project), launcher=launcher)


@needs_bwrap
async def test_the_probe_uses_the_full_set_of_options_and_works_here() -> None:
    backend = Bubblewrap()
    assert backend.probe() is None
    argv = backend.wrap(["true"], ConfinementPolicy(root=Path("/")), Path("/"))
    assert "--unshare-user" in argv and "--cap-drop" in argv
    assert "--disable-userns" in bwrap_options(argv[0])  # bwrap 0.8 here


@needs_bwrap
async def test_inside_there_are_no_capabilities_and_the_uid_is_not_root(
    project: Path, home: Path
) -> None:
    result = await confined(
        "grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status; id -u; id -g; "
        "grep NoNewPrivs /proc/self/status",
        project,
        home,
    )
    lines = result.stdout.splitlines()
    caps = {line.split(":")[0]: line.split()[1] for line in lines[:4]}
    assert caps == dict.fromkeys(("CapPrm", "CapEff", "CapBnd", "CapAmb"), "0000000000000000")
    assert lines[4] != "0" and lines[5] != "0"
    if AS_ROOT:
        assert lines[4:6] == [str(UNPRIVILEGED_ID), str(UNPRIVILEGED_ID)]
    else:
        assert lines[4] == str(os.getuid())
    assert lines[6].split() == ["NoNewPrivs:", "1"]


AS_ROOT = os.geteuid() == 0
PYTHON = os.path.realpath(sys.executable)

#: Privileged operations a confined command tries; every one must fail (label, command).
ESCAPES = [
    ("mount", "mount -t tmpfs none {outside}"),
    ("umount", "umount -l /tmp"),
    ("remount", "mount -o remount,rw,bind /"),
    ("remount-project", "mount -o remount,rw,bind {project}/.git"),
    ("bind", "mount --bind {project} {outside}"),
    ("unshare-user", "unshare -U true"),
    ("unshare-mount", "unshare -m true"),
    ("unshare-root", "unshare -r true"),
    ("chroot", "chroot / true"),
    ("pivot_root", "mkdir -p {project}/new/old && pivot_root {project}/new {project}/new/old"),
    ("mknod", "mknod {project}/disk b 8 0"),
    ("mknod-char", "mknod {project}/mem c 1 1"),
    (
        "raw-socket",
        PYTHON + " -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)'",
    ),
    (
        "packet-socket",
        PYTHON + " -c 'import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)'",
    ),
    ("chown", "touch {project}/mine && chown 1234 {project}/mine"),
    ("setuid", PYTHON + " -c 'import os; os.setuid(0)'"),
    ("sethostname", "hostname pwned"),
]


@needs_bwrap
@pytest.mark.parametrize(("label", "command"), ESCAPES, ids=[label for label, _ in ESCAPES])
async def test_a_privileged_operation_fails_inside(
    project: Path, home: Path, outside_tmp: Path, label: str, command: str
) -> None:
    outside = outside_tmp / "outside"
    outside.mkdir()
    script = command.format(project=project, outside=outside)
    result = await confined(f"{script} && echo ESCAPED-{label}", project, home)
    assert result.exit_code != 0, (label, result.stdout, result.stderr)
    assert f"ESCAPED-{label}" not in result.stdout
    assert list(outside.iterdir()) == []


@needs_bwrap
async def test_the_remount_repro_writes_nothing_outside(
    project: Path, home: Path, outside_tmp: Path
) -> None:
    outside = outside_tmp / "outside"
    outside.mkdir()
    target = outside / "file"
    script = (
        f"umount -l /tmp; mount -o remount,rw,bind /; echo X > {target}; "
        f"mount -o remount,rw {outside}; echo X > {target}; "
        f"echo X > {project}/.git/config; cat /proc/self/mountinfo | grep -c ' ro,' ; true"
    )
    result = await confined(script, project, home)
    assert result.exit_code == 0
    assert not target.exists()
    assert not (project / ".git" / "config").exists()
    assert result.stderr.count("Read-only file system") == 3


# ── a repository's links must not mount anything of the host again ──────────

HOST_PLACES = ["/proc", "/", "/dev", "/sys", "/etc", "/tmp"]


@pytest.mark.parametrize("target", HOST_PLACES)
@pytest.mark.parametrize("where", ["root", "nested", "gitdir-file"])
def test_a_git_pointing_at_a_host_place_mounts_nothing(
    project: Path, home: Path, target: str, where: str
) -> None:
    if where == "root":
        (project / ".git").rmdir()
        (project / ".git").symlink_to(target)
    elif where == "nested":
        (project / "sub").mkdir()
        (project / "sub" / ".git").symlink_to(target)
    else:
        (project / "sub").mkdir()
        (project / "sub" / ".git").write_text(f"gitdir: {target}\n")
    argv = Bubblewrap("/nonexistent/bwrap").wrap(
        ["true"], build_policy(project, home=home), project
    )
    mounts = argv[: argv.index("--chdir")]
    bound = [mounts[i + 1] for i, arg in enumerate(mounts) if arg == "--ro-bind"]
    assert bound.count("/") == 1 and target not in bound[1:], bound
    assert all(
        b == "/" or b == os.devnull or b.startswith(str(project)) or b.startswith(str(home))
        for b in bound
    ), bound


@needs_bwrap
@pytest.mark.parametrize("target", ["/proc", "/", "/dev"])
async def test_a_linked_git_cannot_show_the_hosts_processes_or_hide_the_project(
    project: Path, home: Path, target: str
) -> None:
    (project / "sub").mkdir()
    (project / "sub" / ".git").symlink_to(target)
    (project / ".git").rmdir()
    (project / ".git").symlink_to(target)
    host_pid = os.getpid()
    result = await confined(
        f"cat /proc/{host_pid}/cmdline && echo SEEN; cat /proc/1/comm; "
        "echo written > inside.txt && echo WROTE",
        project,
        home,
    )
    if host_pid < 50:
        pytest.skip("the test's own pid could be one of the sandbox's")
    assert "SEEN" not in result.stdout and "WROTE" in result.stdout, result
    assert result.stdout.splitlines()[0] == "bwrap"  # the sandbox's own init
    assert (project / "inside.txt").read_text() == "written\n"


@needs_bwrap
async def test_a_fifo_git_neither_stops_commands_nor_can_be_replaced(
    project: Path, home: Path
) -> None:
    (project / "sub").mkdir()
    os.mkfifo(project / "sub" / ".git")
    result = await confined("rm -f sub/.git; mv sub/.git sub/x; echo ran", project, home)
    assert result.stdout == "ran\n"
    assert stat.S_ISFIFO(os.lstat(project / "sub" / ".git").st_mode)
    assert not (project / "sub" / "x").exists()


def test_a_bwrap_that_lists_an_option_it_cannot_use_is_reported_by_the_probe(
    tmp_path: Path,
) -> None:
    script = tmp_path / "bwrap"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --help ]; then echo "    --disable-userns   Disable user namespaces"; exit 0; fi\n'
        'for arg; do [ "$arg" = --disable-userns ] && { echo "bwrap: --disable-userns not '
        'supported" >&2; exit 1; }; done\nexit 0\n'
    )
    script.chmod(0o755)
    problem = Bubblewrap(str(script)).probe()
    assert problem is not None
    assert "--disable-userns not supported" in problem.reason
