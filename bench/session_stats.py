"""Benchmark: `getSessionStats` on a resumed 20,000-entry session, through the real `rho`.

Run: uv run python bench/session_stats.py [entries] [runs]
Each run starts `rho --session <file>` on a realistic session (bench/session_fixture.py) and
times, request → response:

- the first `getSessionStats` once the runtime has loaded: after `ready`, a `getTree` for
  one entry (which needs the loaded session, so it waits for the runtime wherever the load
  happens) is answered first, then `getSessionStats` is timed — the figure of the target;
- later calls (everything kept), and the first call after a `branchTo`.

In other runs `getSessionStats` is sent the moment `ready` arrives (so it includes whatever
of the load still runs after `ready`), and exec → `ready` is timed alongside for scale.
`ContextMeter.stats` in process, right after `Session.open`, is timed last.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rho_start import compile_workspace
from session_fixture import write_session

from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.stats import ContextMeter
from rho_kernel.session.store import Session

RHO = str(Path(sys.executable).with_name("rho"))


class Client:
    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [RHO, "-m", "bench-model", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.next_id = 0

    def ready(self) -> float:
        """Read `ready`; exec → `ready`."""
        assert b'"ready"' in self.stdout.readline()
        return time.perf_counter() - self.started

    def call(self, method: str, params: dict[str, Any] | None = None) -> tuple[float, Any]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        started = time.perf_counter()
        self.stdin.write((json.dumps(message) + "\n").encode())
        self.stdin.flush()
        while True:
            reply = json.loads(self.stdout.readline())
            if reply.get("id") == self.next_id:
                return time.perf_counter() - started, reply["result"]

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait(timeout=60)


def summary(label: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    return (
        f"{label}: median {statistics.median(ms):.1f} ms, min {ms[0]:.1f} ms, "
        f"max {ms[-1]:.1f} ms over {len(ms)} samples"
    )


def loaded_runs(path: Path, project: Path, env: dict[str, str], entries: int, runs: int) -> None:
    """The target: getSessionStats once the runtime has loaded; later calls; after a branch."""
    loaded: list[float] = []
    later: list[float] = []
    branched: list[float] = []
    for _ in range(runs):
        client = Client(["--session", str(path)], project, env)
        client.ready()
        client.call("getTree", {"offset": 0, "limit": 1})  # the session is loaded
        elapsed, result = client.call("getSessionStats")
        assert result["pathEntryCount"] > entries // 2, result
        loaded.append(elapsed)
        later.extend(client.call("getSessionStats")[0] for _ in range(5))
        _, tree = client.call("getTree", {"offset": entries // 2, "limit": 1})
        client.call("branchTo", {"entryId": tree["entries"][0]["id"]})
        branched.append(client.call("getSessionStats")[0])
        client.close()
        path.write_text(path.read_text().rsplit("\n", 3)[0] + "\n")  # drop the branch
    print(summary("getSessionStats, first call once the runtime has loaded", loaded))
    print(summary("getSessionStats, later calls", later))
    print(summary("getSessionStats, first call after a branchTo", branched))


def ready_runs(path: Path, project: Path, env: dict[str, str], runs: int) -> None:
    """exec → ready, and getSessionStats sent the moment ready arrives."""
    to_ready: list[float] = []
    first: list[float] = []
    for _ in range(runs):
        client = Client(["--session", str(path)], project, env)
        to_ready.append(client.ready())
        first.append(client.call("getSessionStats")[0])
        client.close()
    print(summary("exec → ready (the resume)", to_ready))
    print(summary("getSessionStats, sent the moment ready arrives", first))


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        (project / ".git").mkdir(parents=True)
        path = sessions_dir(project, home) / "1700000000_b0b0b0b0.jsonl"
        write_session(path, entries)
        env = {**os.environ, "HOME": tmp}
        print(f"session: {entries} entries")
        loaded_runs(path, project, env, entries, runs)
        ready_runs(path, project, env, runs)
        with Session.open(path) as session:
            session.path_entries()
            started = time.perf_counter()
            ContextMeter(context_window=32768, completion_reserve=8192).stats(session)
            in_process = time.perf_counter() - started
    print(f"ContextMeter.stats in process, right after Session.open: {in_process * 1000:.1f} ms")


if __name__ == "__main__":
    main()
