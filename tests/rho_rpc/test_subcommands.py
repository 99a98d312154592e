"""`rho NAME …`: subcommands installed packs add (entry points in `rho.subcommands`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RHO = str(Path(sys.executable).with_name("rho"))


def test_an_unknown_command_names_the_installed_ones(tmp_path: Path) -> None:
    done = subprocess.run(
        [RHO, "frobnicate"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "unknown command 'frobnicate' (installed: acp" in done.stderr


def test_a_subcommand_takes_rhos_flags_and_refuses_bad_ones(tmp_path: Path) -> None:
    done = subprocess.run(
        [RHO, "acp", "--max-iterations", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--max-iterations must be at least 1" in done.stderr
