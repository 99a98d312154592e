"""The bubblewrap backend: the argv it builds, and real confined runs of `bwrap`."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from rho_kernel.confinement import Bubblewrap, ConfinedLauncher, ConfinementPolicy, build_policy
from rho_kernel.confinement.bubblewrap import INSTALL_HINT
from rho_kernel.process import ProcessResult, find_shell, run_process
from rho_kernel.security import SandboxRoot

SH = find_shell(None)
AS_ROOT = os.geteuid() == 0
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)
#: What every argv holds for a bwrap whose --help cannot be read (no optional options).
IDENTITY = [
    *("--unshare-user", "--cap-drop", "ALL"),
    *(("--uid", "65534", "--gid", "65534") if AS_ROOT else ()),
]


# ── the argv ────────────────────────────────────────────────────────────────


def test_wrap_mounts_in_order_root_tmp_project_git_then_hidden_paths(
    project: Path, home: Path
) -> None:
    (project / ".rho").mkdir()
    cache = home / "cache"
    cache.mkdir()
    (home / ".ssh").mkdir()
    (home / ".netrc").write_text("secret\n")
    policy = ConfinementPolicy(
        root=project,
        writable=(cache,),
        read_only=(project / ".git", project / ".rho"),
        read_deny=(home / ".ssh", home / ".netrc"),
    )
    argv = Bubblewrap("/opt/bwrap").wrap(["echo", "hi"], policy, project / "src")
    assert argv == [
        "/opt/bwrap",
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        *IDENTITY,
        *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
        *("--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"),
        *("--bind", str(project), str(project)),
        *("--bind", str(cache), str(cache)),
        *("--ro-bind", str(project / ".git"), str(project / ".git")),
        *("--ro-bind", str(project / ".rho"), str(project / ".rho")),
        *("--tmpfs", str(home / ".ssh"), "--remount-ro", str(home / ".ssh")),
        *("--ro-bind", os.devnull, str(home / ".netrc")),
        *("--chdir", str(project / "src"), "--", "echo", "hi"),
    ]


def test_the_network_is_shared_only_when_granted_as_true(project: Path) -> None:
    backend = Bubblewrap("bwrap")
    for network, shared in ((False, False), (True, True), (("pypi.org",), False)):
        argv = backend.wrap(["true"], ConfinementPolicy(root=project, network=network), project)
        assert ("--share-net" in argv) is shared, network
        assert "--unshare-all" in argv


def test_nonexistent_paths_are_not_mounted(project: Path, home: Path) -> None:
    missing = [home / "no-cache", project / ".rho", home / ".ssh", home / ".netrc"]
    policy = ConfinementPolicy(
        root=project,
        writable=(missing[0],),
        read_only=(project / ".git", missing[1]),
        read_deny=(missing[2], missing[3]),
    )
    argv = Bubblewrap("bwrap").wrap(["true"], policy, project)
    for path in missing:
        assert str(path) not in argv, path
    assert str(project / ".git") in argv


def test_without_a_private_tmp_the_real_tmp_stays(project: Path) -> None:
    policy = ConfinementPolicy(root=project, private_tmp=False)
    argv = Bubblewrap("bwrap").wrap(["true"], policy, project)
    assert "--tmpfs" not in argv and "TMPDIR" not in argv


def test_a_symlinked_git_is_bound_read_only_once_at_its_target(project: Path, home: Path) -> None:
    (project / ".git").rmdir()
    (project / "gitdir").mkdir()
    (project / ".git").symlink_to("gitdir")
    argv = Bubblewrap("bwrap").wrap(["true"], build_policy(project, home=home), project)
    target = str(project / "gitdir")
    assert argv.count(target) == 2 and str(project / ".git") not in argv


# ── the probe ───────────────────────────────────────────────────────────────


@needs_bwrap
def test_probe_finds_a_working_bubblewrap_here() -> None:
    assert Bubblewrap().probe() is None


def test_probe_of_a_missing_executable_names_the_bubblewrap_package() -> None:
    problem = Bubblewrap("/nonexistent/bwrap").probe()
    assert problem is not None
    assert "could not be run" in problem.reason and "/nonexistent/bwrap" in problem.reason
    assert problem.fix == INSTALL_HINT and "'bubblewrap' package" in problem.fix


def test_probe_without_bwrap_on_path_says_it_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    problem = Bubblewrap().probe()
    assert problem is not None
    assert problem.reason == "bubblewrap (bwrap) is not installed"
    assert "'bubblewrap' package" in problem.fix


def test_probe_of_an_executable_that_cannot_start_names_the_bubblewrap_package(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text("not a program\n")
    broken.chmod(0o644)
    problem = Bubblewrap(str(broken)).probe()
    assert problem is not None and "could not be run" in problem.reason
    assert "'bubblewrap' package" in problem.fix


def test_probe_of_a_bwrap_that_fails_reports_its_last_line(tmp_path: Path) -> None:
    failing = tmp_path / "bwrap"
    failing.write_text(
        "#!/bin/sh\necho 'bwrap: starting' >&2\n"
        "echo 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    failing.chmod(failing.stat().st_mode | stat.S_IXUSR)
    problem = Bubblewrap(str(failing)).probe()
    assert problem is not None
    assert problem.reason == (
        "bubblewrap cannot create a sandbox here (bwrap: No permissions to creating new namespace)"
    )
    assert "user namespaces" in problem.fix


# ── real confined runs ──────────────────────────────────────────────────────


async def confined(script: str, project: Path, home: Path, **policy: object) -> ProcessResult:
    """`script` run by the shell under bubblewrap with the project's policy."""
    launcher = ConfinedLauncher(Bubblewrap(), build_policy(project, home=home, **policy))  # type: ignore[arg-type]
    return await run_process(SH.argv(script), root=SandboxRoot(project), launcher=launcher)


@needs_bwrap
async def test_a_write_inside_the_project_works(project: Path, home: Path) -> None:
    result = await confined("mkdir -p build && echo made > build/out && echo ok", project, home)
    assert (result.exit_code, result.stdout) == (0, "ok\n")
    assert result.confined_by == "bubblewrap" and result.argv[0].endswith("bwrap")
    assert (project / "build" / "out").read_text() == "made\n"


@needs_bwrap
async def test_a_write_to_git_fails_as_read_only(project: Path, home: Path) -> None:
    result = await confined("echo pwned > .git/config", project, home)
    assert result.exit_code != 0 and "Read-only file system" in result.stderr
    assert not (project / ".git" / "config").exists()


@needs_bwrap
async def test_writes_outside_the_project_fail_unless_granted(
    project: Path, home: Path, outside_tmp: Path
) -> None:
    (outside_tmp / "cache").mkdir()
    script = f"echo a > {home}/planted; echo b > {outside_tmp}/cache/granted"
    result = await confined(script, project, home, writable=[str(outside_tmp / "cache")])
    assert result.stderr.count("Read-only file system") == 1
    assert not (home / "planted").exists()
    assert (outside_tmp / "cache" / "granted").read_text() == "b\n"


@needs_bwrap
async def test_a_hidden_credential_reads_as_nothing(project: Path, home: Path) -> None:
    (home / ".netrc").write_text("machine example.com password NETRC-SECRET\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("KEY-SECRET\n")
    script = f"cat {home}/.netrc; ls -A {home}/.ssh; cat {home}/.ssh/id_ed25519; echo end"
    result = await confined(script, project, home)
    assert result.stdout == "end\n"
    assert "No such file or directory" in result.stderr and "SECRET" not in result.stderr


@needs_bwrap
async def test_a_symlink_in_the_project_to_a_denied_file_does_not_expose_it(
    project: Path, home: Path
) -> None:
    (home / ".netrc").write_text("NETRC-SECRET\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-SECRET\n")
    (project / "netrc").symlink_to(home / ".netrc")
    (project / "aws").symlink_to(home / ".aws")
    result = await confined("cat netrc aws/credentials; echo end", project, home)
    assert "SECRET" not in result.stdout + result.stderr
    assert result.stdout == "end\n"


@needs_bwrap
async def test_tmpdir_is_a_private_empty_tmp(
    project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(home))
    marker = Path(tempfile.mkdtemp(prefix="rho-confinement-"))
    inside = marker / "written-inside"
    try:
        result = await confined(
            f'echo "$TMPDIR"; ls -A /tmp; mkdir -p {marker}; echo x > {inside}', project, home
        )
        written = inside.exists()
    finally:
        shutil.rmtree(marker)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "/tmp\n", "")
    assert not written
