"""The dynamic loader's variables reach only what runs inside the sandbox, never the launcher
that sets it up (`bwrap`, the Landlock launcher): a library named by `LD_PRELOAD` in a
process's environment (a trusted repository's MCP server `env`, say) would otherwise run
outside the sandbox. Proved with a real library whose constructor writes outside."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rho_kernel.confinement import Bubblewrap, ConfinedLauncher, Landlock, build_policy
from rho_kernel.confinement.environment import env_prefix, loader_variable, split
from rho_kernel.process import run_process
from rho_kernel.security import SandboxRoot

LIBRARY = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    const char *path = getenv("RHO_PLANTED");
    if (path) { int fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644); if (fd >= 0) { write(fd, "x", 1); close(fd); } }
}
"""


def test_only_the_loaders_variables_move_inside() -> None:
    inner, outer = split({"PATH": "/bin", "LD_PRELOAD": "x.so", "GLIBC_TUNABLES": "y"})
    assert inner == {"LD_PRELOAD": "x.so", "GLIBC_TUNABLES": "y"} and outer == {"PATH": "/bin"}
    assert env_prefix(inner) == ["env", "LD_PRELOAD=x.so", "GLIBC_TUNABLES=y"]
    assert env_prefix({}) == []
    assert loader_variable("LD_AUDIT") and loader_variable("GCONV_PATH")
    assert not loader_variable("OLD_LD") and not loader_variable("PATH")


class PlainBackend(Landlock):
    """A backend that cannot set variables inside (rho puts `env` in front instead)."""

    sets_environment = False


def _backends() -> list[object]:
    found: list[object] = []
    if shutil.which("bwrap") and Bubblewrap().probe() is None:
        found.append(pytest.param(Bubblewrap(), id="bubblewrap"))
    for tier in ("user", "none"):
        for kind, label in ((Landlock, "landlock"), (PlainBackend, "env-prefix")):
            backend = kind(namespaces=tier)  # type: ignore[arg-type]
            marks = []
            if backend.probe() is not None:
                marks.append(pytest.mark.skip(reason=f"the Landlock {tier} tier cannot start here"))
            found.append(pytest.param(backend, id=f"{label}-{tier}", marks=marks))
    return found


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) to build the library")
@pytest.mark.parametrize("backend", _backends())
async def test_a_preloaded_library_runs_only_inside_the_sandbox(
    backend: object, project: Path, home: Path, outside_tmp: Path
) -> None:
    source = outside_tmp / "planted.c"
    source.write_text(LIBRARY)
    library = project / "planted.so"  # where a confined command could have built it
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    marker = outside_tmp / "escaped"
    launcher = ConfinedLauncher(backend, build_policy(project, home=home))  # type: ignore[arg-type]
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": str(library), "RHO_PLANTED": str(marker)}
    result = await run_process(
        ["sh", "-c", 'echo "$LD_PRELOAD"'], root=SandboxRoot(project), env=env, launcher=launcher
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{library}\n"  # the command still gets it
    assert not marker.exists()  # …and nothing outside the sandbox ran it
