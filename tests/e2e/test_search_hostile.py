"""search_files and find_files through the real `rho` against a hostile tree and a hostile
end: a directory swapped for a symlink to outside while the tools run, a search blocked
when rho is killed, and a FIFO given as the path."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from exchange_loop import exchanging  # type: ignore[import-not-found]
from proc_watch import wait_for_exe, wait_for_pid_file, wait_gone  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_calls_reply
from rho_tools_fs.ripgrep import find_rg

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

CALLS = 20


def _tool_results(rho: Any) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def _shared(shared_rho: Any) -> tuple[Any, ScriptedServer, Path]:
    """The module's `--ephemeral` rho, fresh for this test (its exit status is checked when
    the module is done); each test keeps its files apart in the shared project."""
    shared = shared_rho("--ephemeral")
    return shared.rho, shared.server, shared.project


def test_a_swapped_directory_never_leaks_through_rho(shared_rho: Any, tmp_path: Path) -> None:
    rho, server, project = _shared(shared_rho)
    project = project / "swapping"
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    for index in range(20):
        (outside / f"leak{index}.txt").write_text(f"needle OUTSIDE-SECRET {index}\n")
        (outside / "sub" / f"leak{index}.txt").write_text(f"needle OUTSIDE-SECRET {index}\n")
    (project / "d" / "sub").mkdir(parents=True)
    (project / "d" / "in.txt").write_text("needle inside\n")
    (project / "d" / "sub" / "in.txt").write_text("needle inside\n")
    (project / "x").symlink_to(outside, target_is_directory=True)
    calls = [
        ("search_files", {"pattern": "needle", "path": "swapping"}),
        ("find_files", {"pattern": "*.txt", "path": "swapping"}),
    ]
    server.add(*(tool_calls_reply(calls) for _ in range(CALLS)), text_reply("done"))
    with exchanging(project, "d", "x"):
        response = rho.call("prompt", {"message": "go"}, timeout=300)
    assert response["result"]["reply"] == "done"
    results = _tool_results(rho)
    assert len(results) == 2 * CALLS
    for result in results:
        assert "OUTSIDE" not in result["output"]
        assert "leak" not in result["output"]
    assert "approval/request" not in rho.methods_seen()


def test_a_blocked_ripgrep_dies_with_a_killed_rho(
    start_rho: Any, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:
    real_rg = find_rg()
    if real_rg is None:
        pytest.skip("no ripgrep")
    fifo, pid_file = tmp_path / "never-written", tmp_path / "rg.pid"
    os.mkfifo(fifo)
    stand_in = tmp_path / "rg-blocked"  # becomes the real rg, reading a FIFO no one writes
    stand_in.write_text(f'#!/bin/sh\necho $$ > "{pid_file}"\nexec "{real_rg}" needle "{fifo}"\n')
    stand_in.chmod(0o755)
    (project / "a.txt").write_text("needle\n")
    server.add(tool_calls_reply([("search_files", {"pattern": "needle"})]), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env={"RHO_RG": str(stand_in)})
    rho.request("prompt", {"message": "go"})
    rg = wait_for_pid_file(pid_file)
    wait_for_exe(rg, os.path.basename(real_rg))
    rho.proc.kill()
    rho.proc.wait()
    assert wait_gone(rg), "ripgrep outlived the killed rho"


def test_a_fifo_as_path_is_refused_through_rho(shared_rho: Any) -> None:
    rho, server, project = _shared(shared_rho)
    os.mkfifo(project / "pipe")
    calls = [
        ("search_files", {"pattern": "x", "path": "pipe"}),
        ("find_files", {"pattern": "*", "path": "pipe"}),
        ("list_dir", {"path": "pipe"}),
    ]
    server.add(tool_calls_reply(calls), text_reply("done"))
    assert rho.call("prompt", {"message": "go"})["result"]["reply"] == "done"
    outputs = [(r["is_error"], r["output"]) for r in _tool_results(rho)]
    assert outputs == [
        (True, f"{name}: 'pipe' is a FIFO; only a directory or a regular file can be used")
        for name, _ in calls
    ]
