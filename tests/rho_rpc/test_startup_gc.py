"""The collector is held off while rho starts and is back on once `ready` is sent."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rho_process import rho_env  # type: ignore[import-not-found]

from rho_rpc import startup_gc

#: Runs `rho ARGS` as the console script does and writes, when the process exits, whether
#: collection is on and how many objects were frozen.
WRAPPER = """
import atexit, gc, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(
    json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()})))
from rho_rpc.cli import main
sys.argv[0] = "rho"
sys.exit(main())
"""


@pytest.fixture
def collector_state() -> Iterator[None]:
    """Leave this process's collector as the test found it."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_collection_is_back_on_after_ready_with_start_up_frozen(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    state = tmp_path / "gc.json"
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(state), "--ephemeral"],
        cwd=project,
        env=rho_env(tmp_path / "home"),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[0])["method"] == "ready"
    seen = json.loads(state.read_text())
    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000  # start-up's objects, skipped by later collections


def test_resume_turns_collection_on_only_if_pause_turned_it_off(collector_state: None) -> None:
    gc.disable()
    startup_gc.pause()
    startup_gc.resume()
    assert not gc.isenabled()  # a host that runs without the collector keeps it off

    gc.enable()
    startup_gc.pause()
    assert not gc.isenabled()
    startup_gc.resume()
    assert gc.isenabled()
    startup_gc.resume()  # a second resume changes nothing
    assert gc.isenabled()
