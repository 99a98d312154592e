"""rho killed with SIGKILL in the middle of a snapshot and of a restore: the store stays
usable, every file is whole and from one state or the other, and a later rho restores and
undoes as if nothing had happened.

A `git` on rho's PATH stands in for the real one: the Nth run of one subcommand runs the
real git, then writes its own pid to a file and waits to be killed — the test waits for
that file, then kills rho and it.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")

STOPPING_GIT = """#!/bin/sh
# The real git; on the {nth}th run of `{subcommand}`, stop after it and wait to be killed.
"{real}" "$@"
status=$?
for arg do
  if [ "$arg" = "{subcommand}" ]; then
    count=$(( $(cat "{counter}" 2>/dev/null || echo 0) + 1 ))
    echo "$count" > "{counter}"
    if [ "$count" = "{nth}" ]; then
      echo $$ > "{stopped}.new" && mv "{stopped}.new" "{stopped}"
      exec sleep 3600
    fi
    break
  fi
done
exit $status
"""


class StoppingGit:
    """A folder holding the stand-in `git`, and the file its stopped run writes."""

    def __init__(self, folder: Path, subcommand: str, nth: int) -> None:
        real = shutil.which("git")
        assert real is not None
        folder.mkdir()
        self.stopped = folder / "stopped"
        script = STOPPING_GIT.format(
            real=real,
            subcommand=subcommand,
            nth=nth,
            counter=folder / "count",
            stopped=self.stopped,
        )
        (folder / "git").write_text(script)
        (folder / "git").chmod(0o755)
        self.path = f"{folder}:{os.environ['PATH']}"

    def kill_when_stopped(self, rho: RhoProcess) -> None:
        """Wait for the stopped run, then SIGKILL rho and it."""
        deadline = time.monotonic() + 120
        while not self.stopped.exists():
            assert rho.proc.poll() is None, "rho exited before git stopped"
            assert time.monotonic() < deadline, "git never stopped"
            time.sleep(0.05)
        rho.proc.send_signal(signal.SIGKILL)
        rho.proc.wait(timeout=30)
        os.kill(int(self.stopped.read_text()), signal.SIGKILL)


def _user_entry(rho: RhoProcess, text: str) -> str:
    entries = rho.call("getTree")["result"]["entries"]
    return next(e["id"] for e in entries if e.get("role") == "user" and e["preview"] == text)


def _stores(home: Path) -> list[Path]:
    return list((home / ".rho" / "checkpoints").iterdir())


def test_killed_in_a_snapshot_the_store_stays_usable(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path, tmp_path: Path
) -> None:
    (project / "a.txt").write_text("before\n")
    git = StoppingGit(tmp_path / "bin", "add", 2)  # the first records the project at start
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "after\n"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto", env={"PATH": git.path})
    session = rho.call("getState")["result"]["sessionPath"]
    rho.request("prompt", {"message": "change"})
    git.kill_when_stopped(rho)  # in the snapshot that ends the turn, its index written
    assert (project / "a.txt").read_text() == "after\n"

    server.add(tool_call_reply("write_file", {"path": "b.txt", "content": "b\n"}), text_reply("ok"))
    again = start_scripted(start_rho, server, "--approval-mode", "auto", "--session", session)
    turn = _user_entry(again, "change")
    # The write came after the last checkpoint rho recorded: whose it was cannot be known.
    refused = again.call("restoreFiles", {"entryId": turn})["result"]
    assert refused == {
        "restored": [],
        "conflicts": ["a.txt"],
        "reasons": {"a.txt": "a.txt changed since rho last recorded it, by someone else"},
    }
    restored = again.call("restoreFiles", {"entryId": turn, "force": True})["result"]
    assert restored["restored"] == [{"path": "a.txt", "status": "modified", "action": "restored"}]
    assert restored["conflicts"] == []
    assert (project / "a.txt").read_text() == "before\n"
    assert again.call("prompt", {"message": "more"})["result"]["reply"] == "ok"
    diff = again.call("diffCheckpoint", {"entryId": _user_entry(again, "more")})["result"]
    assert [(f["path"], f["status"]) for f in diff["files"]] == [("b.txt", "added")]
    assert again.finish() == 0
    (store,) = _stores(home)
    assert not list(store.glob("index.rho-*"))  # the killed rho's copy was cleared away


def test_killed_in_a_restore_every_file_is_whole_and_it_can_be_undone_or_redone(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path, tmp_path: Path
) -> None:
    user_config(home, "[checkpoints]\nmax_file_mb = 20\n")
    names = ("big1.bin", "big2.bin", "big3.bin")
    before = {name: name.encode() * ((12 << 20) // len(name)) for name in names}
    for name, data in before.items():
        (project / name).write_bytes(data)
    after = {name: data + b"x" for name, data in before.items()}
    # The restore asks the sizes (one cat-file), then reads big1 and big2 (24 MiB) in one
    # batch and big3 in a second: rho is killed as the second is read, after the first two
    # are written back.
    git = StoppingGit(tmp_path / "bin", "cat-file", 3)
    server.add(
        tool_call_reply("run_command", {"command": "for f in big*.bin; do printf x >> $f; done"}),
        text_reply("appended"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto", env={"PATH": git.path})
    session = rho.call("getState")["result"]["sessionPath"]
    assert rho.call("prompt", {"message": "append"})["result"]["reply"] == "appended"
    assert all((project / name).read_bytes() == after[name] for name in names)
    rho.request("restoreFiles", {"entryId": _user_entry(rho, "append")})
    git.kill_when_stopped(rho)

    now = {name: (project / name).read_bytes() for name in names}
    assert now == {"big1.bin": before["big1.bin"], "big2.bin": before["big2.bin"]} | {
        "big3.bin": after["big3.bin"]
    }
    assert not [path.name for path in project.iterdir() if path.name.endswith(".rho-tmp")]

    again = start_scripted(start_rho, server, "--session", session)
    undone = again.call("restoreFiles", {"undo": True})["result"]
    assert undone["conflicts"] == []  # the killed restore's own writes are no one else's
    assert {name: (project / name).read_bytes() for name in names} == after
    turn = _user_entry(again, "append")
    redone = again.call("restoreFiles", {"entryId": turn})["result"]
    assert redone["conflicts"] == [] and len(redone["restored"]) == 3
    assert {name: (project / name).read_bytes() for name in names} == before
    assert again.finish() == 0
