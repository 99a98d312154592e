"""A process rho starts dies when rho is killed (SIGKILL, no chance to clean up).

A driver process plays rho: it starts a child through `run_process` (or ripgrep's runner)
that records its pid and then blocks; the test SIGKILLs the driver and waits for the child to
be gone. The waits poll /proc; their deadline is only a safety net.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from proc_watch import alive, wait_for_pid_file, wait_gone  # type: ignore[import-not-found]

from rho_kernel.process import die_with_parent, die_with_parent_argv

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, prctl")

BLOCKER = 'echo $$ > "$1"; exec sleep 600'

RUN_PROCESS = """
import asyncio, sys
from rho_kernel.process import run_process
from rho_kernel.security import SandboxRoot

asyncio.run(run_process(["sh", "-c", sys.argv[1], "sh", sys.argv[2]],
                        root=SandboxRoot(sys.argv[3])))
"""

RIPGREP = """
import asyncio, sys
from pathlib import Path
from rho_tools_fs.ripgrep import RipgrepRun

async def main() -> None:
    async with RipgrepRun("sh", ["-c", sys.argv[1], "sh", sys.argv[2]], Path(sys.argv[3])) as run:
        async for _ in run.records():
            pass

asyncio.run(main())
"""

RIPGREP_NO_SETPRIV = RIPGREP.replace(
    "from rho_tools_fs.ripgrep import RipgrepRun",
    "import rho_tools_fs.ripgrep as ripgrep\n"
    "ripgrep.die_with_parent_argv = lambda: ()  # no setpriv: the preexec_fn arms it\n"
    "from rho_tools_fs.ripgrep import RipgrepRun",
)

THREADED = """
import asyncio, sys, threading
from rho_kernel.process import run_process
from rho_kernel.security import SandboxRoot

async def main() -> None:
    threading.Thread(target=lambda: None).start()  # worker threads come and go
    await asyncio.to_thread(lambda: None)
    await run_process(["sh", "-c", sys.argv[1], "sh", sys.argv[2]], root=SandboxRoot(sys.argv[3]))

asyncio.run(main())
"""


@pytest.mark.parametrize(
    "driver",
    [RUN_PROCESS, RIPGREP, RIPGREP_NO_SETPRIV, THREADED],
    ids=["run", "rg", "rg-preexec", "threads"],
)
def test_the_child_dies_with_its_killed_parent(tmp_path: Path, driver: str) -> None:
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(driver), BLOCKER, str(pid_file), str(tmp_path)]
    )
    try:
        child = wait_for_pid_file(pid_file)
        assert alive(child)
        parent.kill()
        parent.wait()
        assert wait_gone(child), "the child outlived its killed parent"
    finally:
        parent.kill()
        parent.wait()


def test_the_child_setup_is_armed_only_where_it_works() -> None:
    setup = die_with_parent()
    assert (setup is not None) == sys.platform.startswith("linux")
    prefix = die_with_parent_argv()
    assert prefix == () or prefix[1:] == ("--pdeathsig", "KILL", "--")


def test_a_child_started_after_its_parent_died_kills_itself(tmp_path: Path) -> None:
    """The parent may die between fork and the prctl: the child notices and goes."""
    setup = die_with_parent()
    assert setup is not None
    code = textwrap.dedent(
        """
        import os, subprocess, sys
        from rho_kernel.process import die_with_parent, die_with_parent_argv
        setup = die_with_parent()
        # The recorded parent is not this process's parent: as if it had died already.
        pid = os.fork()
        if pid == 0:
            done = subprocess.run(["sh", "-c", "echo ran > " + sys.argv[1]], preexec_fn=setup)
            os._exit(0 if done.returncode == -9 else 1)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    marker = tmp_path / "ran"
    done = subprocess.run([sys.executable, "-c", code, str(marker)], timeout=60, check=False)
    assert done.returncode == 0
    assert not marker.exists()
