"""The git rho runs for its checkpoints reads none of the user's git files: FIFOs at
`~/.gitconfig`, `~/.config/git/…` or `$XDG_CONFIG_HOME/git/…` (which would hold any git that
opens them forever) hold no prompt, through the real `rho`.

A FIFO with no writer blocks whoever opens it, so every FIFO is given an end of file and
removed as each test ends (freeing a git that opened one after all), and waits are bounded by
events with rho_process's timeout, never by sleeping."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fifo_traps import freed_fifos, nobody_waits  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")

#: The files git reads from a user's configuration folder (`~/.config/git` or
#: `$XDG_CONFIG_HOME/git`).
GIT_USER_FILES = ("config", "attributes", "ignore")


@pytest.fixture
def fifos() -> Iterator[list[Path]]:
    """The FIFOs a test makes, freed and removed as it ends."""
    yield from freed_fifos()


def _make_fifos(folder: Path, names: tuple[str, ...], made: list[Path]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        os.mkfifo(folder / name)
        made.append(folder / name)


def _prompt_records_and_restores(
    start_rho: Any, server: ScriptedServer, project: Path, env: dict[str, str]
) -> Any:
    """A prompt that writes a file and runs a command, its checkpoints, and a restore."""
    (project / "a.txt").write_text("one\n")
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "two\n"}),
        tool_call_reply("run_command", {"command": "echo made > b.txt"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto", env=env)
    assert rho.call("prompt", {"message": "edit"})["result"]["reply"] == "done"
    entries = rho.call("getTree")["result"]["entries"]
    assert [e["marks"] for e in entries if e.get("marks")] == [{"filesChanged": 2}]
    turn = next(e["id"] for e in entries if e.get("role") == "user")
    restored = rho.call("restoreFiles", {"entryId": turn})["result"]
    assert restored["conflicts"] == [] and len(restored["restored"]) == 2
    assert (project / "a.txt").read_text() == "one\n" and not (project / "b.txt").exists()
    assert rho.finish() == 0
    return rho


def test_fifos_at_the_users_gitconfig_and_config_git_hold_no_prompt(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path, fifos: list[Path]
) -> None:
    os.mkfifo(home / ".gitconfig")
    fifos.append(home / ".gitconfig")
    _make_fifos(home / ".config" / "git", GIT_USER_FILES, fifos)
    env = {"XDG_CONFIG_HOME": str(home / ".config")}  # where git looks when it is unset
    rho = _prompt_records_and_restores(start_rho, server, project, env)
    assert "checkpoints are off" not in rho.stderr_text()
    assert all(nobody_waits(fifo) for fifo in fifos)


def test_fifos_in_xdg_config_home_hold_no_prompt(
    start_rho: Any,
    server: ScriptedServer,
    project: Path,
    home: Path,
    tmp_path: Path,
    fifos: list[Path],
) -> None:
    xdg = tmp_path / "xdg"
    _make_fifos(xdg / "git", GIT_USER_FILES, fifos)
    rho = _prompt_records_and_restores(start_rho, server, project, {"XDG_CONFIG_HOME": str(xdg)})
    assert "checkpoints are off" not in rho.stderr_text()
    assert all(nobody_waits(fifo) for fifo in fifos)
