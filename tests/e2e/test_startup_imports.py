"""At `ready`, the real `rho` process has imported only what reading requests needs.

`ready` goes out before the runtime loads (see `rho_rpc.early_ready`): asyncio, pydantic,
the plugins and the runtime are imported after it. Where `ready` must wait for the load (a
local provider with no model named, a resumed session), the heavy third-party libraries
(HTTP client, tree-sitter, the JavaScript engine, SQLite) and the kernel's parts that only a
prompt, a compaction or a command use (the agent loop, compaction, context fitting, the
sandbox backends) are still imported later, on first use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rho_process import RHO, WAIT, rho_env  # type: ignore[import-not-found]

PROBE = str(Path(__file__).with_name("ready_probe.py"))

#: Never loaded before `ready` (a name also stands for its submodules).
HEAVY = (
    "httpx",
    "httpcore",
    "tree_sitter",
    "tree_sitter_language_pack",
    "py_mini_racer",
    "sqlite3",
    "_sqlite3",
    "sqlite_utils",
    "rho_kernel.loop.agent",
    "rho_kernel.loop.result",
    "rho_kernel.providers.events",
    "rho_kernel.compaction.compactor",
    "rho_kernel.compaction.mechanical",
    "rho_kernel.compaction.llm",
    "rho_kernel.loop.compaction",
    "rho_kernel.loop.guards",
    "rho_kernel.context.fitting",
    "rho_kernel.context.outlines",
    "rho_kernel.context.bounding",
    "rho_kernel.confinement.state",
    "rho_kernel.confinement.backend",
    "rho_kernel.confinement.policy",
    "rho_kernel.confinement.bubblewrap",
    "rho_kernel.confinement.seccomp",
    "rho_kernel.confinement.seatbelt",
)


def modules_at_ready(project: Path, home: Path, tmp_path: Path, *args: str) -> list[str]:
    """The modules the real `rho` (run with `args`) had loaded when it wrote `ready`."""
    record = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, PROBE, str(record), RHO, *args],
        cwd=project,
        env=rho_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=WAIT,
    )
    first = done.stdout.splitlines()[0] if done.stdout else b""
    assert json.loads(first)["method"] == "ready", done.stderr.decode(errors="replace")
    assert record.is_file(), "the probe saw no `ready` line written to stdout with os.write"
    loaded: list[str] = json.loads(record.read_text(encoding="utf-8"))
    return loaded


#: A start whose `ready` waits for the runtime: no model named and a local provider (that
#: answers nothing: port 9), which the load asks for its loaded model first. At its `ready`
#: the runtime, the plugins and the tools are there, as they are when the first request
#: comes in a start whose `ready` goes out first.
READY_AFTER_LOAD = ("--ephemeral", "--endpoint", "http://127.0.0.1:9/v1/chat/completions")
#: What asking that server loads (its failure is a provider error), of the heavy modules.
ASKING_THE_SERVER = ["rho_kernel.providers.events"]

#: Loaded right after an early `ready`: the event loop, the wire models, the runtime.
LOADED_AFTER_READY = (
    "asyncio",
    "pydantic",
    "pydantic_core",
    "pluggy",
    "rho_kernel.runtime",
    "rho_kernel.plugins",
    "rho_kernel.config.model",
    "rho_rpc.app",
    "rho_rpc.server",
)


def heavy_among(loaded: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return [name for name in loaded if any(name == h or name.startswith(h + ".") for h in heavy)]


@pytest.mark.parametrize(
    "args",
    [
        ["--ephemeral", "--model", "m"],
        ["--model", "m"],  # a session that will be saved
        ["--ephemeral", "--model", "m", "--compact"],
    ],
    ids=["ephemeral", "saved-session", "compact"],
)
def test_no_heavy_module_is_loaded_at_ready(
    project: Path, home: Path, tmp_path: Path, args: list[str]
) -> None:
    loaded = modules_at_ready(project, home, tmp_path, *args)
    assert "rho_rpc.early_ready" in loaded  # the record is real
    assert heavy_among(loaded) == []
    # Nor what the runtime loads right after `ready`.
    assert heavy_among(loaded, LOADED_AFTER_READY) == []


def test_ready_waits_for_the_load_where_only_the_load_can_tell(
    project: Path, home: Path, tmp_path: Path
) -> None:
    loaded = modules_at_ready(project, home, tmp_path, *READY_AFTER_LOAD)
    assert "rho_kernel.runtime" in loaded and "rho_rpc.app" in loaded


@pytest.mark.parametrize(
    "config",
    [
        '[sandbox]\nrequire = true\n[agent]\ncompaction_mode = "llm"\n',
        '[sandbox]\nmode = "off"\n',
    ],
    ids=["sandbox-required-llm-compaction", "sandbox-off"],
)
def test_sandbox_and_compaction_settings_do_not_load_them_before_ready(
    project: Path, home: Path, tmp_path: Path, config: str
) -> None:
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text(config, encoding="utf-8")
    for args in (("--ephemeral", "--model", "m"), READY_AFTER_LOAD):
        (tmp_path / "modules.json").unlink(missing_ok=True)
        loaded = modules_at_ready(project, home, tmp_path, *args)
        asked = ASKING_THE_SERVER if args == READY_AFTER_LOAD else []
        assert heavy_among(loaded) == asked


def test_a_bad_compaction_mode_is_still_refused_at_start_up(project: Path, home: Path) -> None:
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text(
        '[agent]\ncompaction_mode = "no-such-strategy"\n', encoding="utf-8"
    )
    done = subprocess.run(
        [RHO, "--ephemeral", "--model", "m"],
        cwd=project,
        env=rho_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"no-such-strategy" in done.stderr and b"Traceback" not in done.stderr
