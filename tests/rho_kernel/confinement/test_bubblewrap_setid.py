"""No setuid or setgid file from a confined command: bubblewrap loads the seccomp filter
from a pipe it inherits, the probe starts bwrap the same way, and real confined runs try
every way to make a set-ID file (as root in CI: such a file would be owned by host root)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from setid_attacks import (  # type: ignore[import-not-found]
    ATTEMPTS,
    assert_no_setid,
    setid_files,
    setid_script,
)

from rho_kernel.confinement import (
    Bubblewrap,
    ConfinedLauncher,
    ConfinementPolicy,
    build_policy,
    seccomp,
)
from rho_kernel.confinement import bubblewrap as module
from rho_kernel.process import ProcessResult, find_shell, run_process
from rho_kernel.security import SandboxRoot

SH = find_shell(None)
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (.ci/run installs it)"
)
needs_filter = pytest.mark.skipif(
    seccomp.filter_for_machine() is None, reason="no filter for this machine"
)


def open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


@needs_filter
def test_launch_passes_the_filter_through_a_pipe_closed_after_the_block(tmp_path: Path) -> None:
    before = open_fds()
    backend = Bubblewrap("/nonexistent/bwrap")
    with backend.launch(["true"], ConfinementPolicy(root=tmp_path), tmp_path) as launch:
        (fd,) = launch.pass_fds
        at = launch.argv.index("--seccomp")
        assert launch.argv[at + 1] == str(fd) and at < launch.argv.index("--")
        assert os.read(fd, 65536) == seccomp.build_filter()
        assert os.read(fd, 1) == b""  # the write end is closed: bwrap reads to the end
        assert not os.get_inheritable(fd)  # only the started process gets it (pass_fds)
    assert open_fds() == before


def test_no_filter_where_none_is_made_and_the_probe_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(module, "_filter", lambda: None)
    with Bubblewrap("/bin/false").launch(["true"], ConfinementPolicy(root=tmp_path), tmp_path) as (
        launch
    ):
        assert launch.pass_fds == () and "--seccomp" not in launch.argv
    Bubblewrap("/bin/false").probe()
    assert "can create setuid and setgid files" in capsys.readouterr().err


@needs_bwrap
@needs_filter
def test_the_probe_starts_bwrap_with_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[tuple[list[str], tuple[int, ...]]] = []
    real_run = module.subprocess.run

    def run(argv: list[str], **options: object) -> object:
        started.append((argv, options.get("pass_fds", ())))  # type: ignore[arg-type]
        return real_run(argv, **options)  # type: ignore[call-overload]

    monkeypatch.setattr(module.subprocess, "run", run)
    assert Bubblewrap().probe() is None
    argv, fds = started[-1]
    assert "--seccomp" in argv and fds == (int(argv[argv.index("--seccomp") + 1]),)


async def confined(script: str, project: Path, home: Path) -> ProcessResult:
    launcher = ConfinedLauncher(Bubblewrap(), build_policy(project, home=home))
    return await run_process(SH.argv(script), root=SandboxRoot(project), launcher=launcher)


@pytest.fixture
def outside(outside_tmp: Path) -> Path:
    path = outside_tmp / "outside"
    path.mkdir()
    return path


@needs_bwrap
@needs_filter
async def test_no_way_to_make_a_set_id_file_and_ordinary_modes_still_work(
    project: Path, home: Path, outside: Path
) -> None:
    before = open_fds()
    result = await confined(setid_script(project, outside), project, home)
    assert result.exit_code == 0, result.stderr
    assert_no_setid(result.stdout, project)
    assert open_fds() == before  # the filter's pipe is closed once bwrap has started


@needs_bwrap
@needs_filter
async def test_the_command_and_the_sandboxs_init_both_run_under_the_filter(
    project: Path, home: Path
) -> None:
    """Tracing the sandbox's pid 1 (same uid) would not get past it: it is filtered too.

    bwrap's pid 1 loads the filter just after it starts the command, so the command waits
    for that (an event, not a time): were pid 1 never filtered, the wait would not end and
    the test would fail on its timeout."""
    wait = "until grep -q '^Seccomp:[[:space:]]*2' /proc/1/status; do :; done"
    line = f"{wait}; grep '^Seccomp:' /proc/self/status /proc/1/status"
    result = await confined(line, project, home)
    assert [line.split()[-1] for line in result.stdout.splitlines()] == ["2", "2"]


@needs_bwrap
@needs_filter
async def test_commands_running_at_once_each_get_the_whole_filter(
    project: Path, home: Path
) -> None:
    scripts = [f"touch c{i} && chmod 4755 c{i}; chmod 0755 c{i} && echo done" for i in range(6)]
    results = await asyncio.gather(*(confined(s, project, home) for s in scripts))
    assert [r.stdout for r in results] == ["done\n"] * 6, [r.stderr for r in results]
    assert all("Operation not permitted" in r.stderr for r in results)
    assert setid_files(project) == []


@needs_bwrap
async def test_without_the_filter_the_attempts_do_make_set_id_files(
    project: Path, home: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attacks are real: bubblewrap alone lets a command owning a file set the bits."""
    monkeypatch.setattr(module, "_filter", lambda: None)
    result = await confined(setid_script(project, outside), project, home)
    worked = {line.split("=")[0] for line in result.stdout.split() if line.endswith("=ok")}
    assert {"chmod-u+s", "chmod-g+s", "py-chmod", "open-creat", "py-mkdir", "mknod"} <= worked
    assert len(worked & {label for label, _ in ATTEMPTS}) >= len(ATTEMPTS) // 2, worked
    assert len(setid_files(project)) >= 10


@needs_bwrap
@needs_filter
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_the_filter_also_holds_for_a_rho_that_is_not_root() -> None:
    """bwrap started as `nobody` (what a normal user's rho does) gets the same filter."""
    base = Path(tempfile.mkdtemp(prefix="rho-setid-", dir="/var/tmp"))
    try:
        base.chmod(0o755)
        project = base / "project"
        project.mkdir(mode=0o777)
        project.chmod(0o777)
        script = "id -u; touch f; chmod u+s f; chmod 2755 f; chmod 0755 f && echo changed"
        policy = ConfinementPolicy(root=project)
        with Bubblewrap().launch(SH.argv(script), policy, project) as launch:
            as_nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
            done = subprocess.run(
                [*as_nobody, *launch.argv],
                capture_output=True,
                text=True,
                pass_fds=launch.pass_fds,
                timeout=60,
                check=False,
            )
        assert done.stdout.split() == ["65534", "changed"], done.stderr
        assert done.stderr.count("Operation not permitted") == 2
        assert (project / "f").stat().st_uid == 65534  # a normal user's own file
        assert setid_files(project) == []
    finally:
        shutil.rmtree(base, ignore_errors=True)
