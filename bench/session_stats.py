"""Benchmark: `getSessionStats` on a resumed 20,000-entry session, through the real `rho`.

Run: uv run python bench/session_stats.py [entries] [runs]
Each run starts `rho --session <file>` on a realistic session (bench/session_fixture.py),
sends `getSessionStats` the moment `ready` arrives and times request → response (the first
call: nothing estimated yet), then times further calls (estimates kept) and a call after a
branch (the totals summed again from the kept estimates). `ContextMeter.stats` in process is
timed alongside.
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

from session_fixture import write_session

from rho_kernel.session.discovery import sessions_dir
from rho_kernel.session.stats import ContextMeter
from rho_kernel.session.store import Session

RHO = str(Path(sys.executable).with_name("rho"))


class Client:
    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
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


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    first: list[float] = []
    later: list[float] = []
    branched: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        (project / ".git").mkdir(parents=True)
        path = sessions_dir(project, home) / "1700000000_b0b0b0b0.jsonl"
        write_session(path, entries)
        env = {**os.environ, "HOME": tmp}
        for _ in range(runs):
            client = Client(["--session", str(path)], project, env)
            assert b'"ready"' in client.stdout.readline()
            elapsed, result = client.call("getSessionStats")
            assert result["pathEntryCount"] > entries // 2, result
            first.append(elapsed)
            later.extend(client.call("getSessionStats")[0] for _ in range(5))
            _, tree = client.call("getTree", {"offset": entries // 2, "limit": 1})
            client.call("branchTo", {"entryId": tree["entries"][0]["id"]})
            branched.append(client.call("getSessionStats")[0])
            client.close()
            path.write_text(path.read_text().rsplit("\n", 3)[0] + "\n")  # drop the branch
        with Session.open(path) as session:
            session.path_entries()
            started = time.perf_counter()
            ContextMeter(context_window=32768, completion_reserve=8192).stats(session)
            in_process = time.perf_counter() - started
    print(f"session: {entries} entries")
    print(summary("getSessionStats, first call after ready", first))
    print(summary("getSessionStats, later calls", later))
    print(summary("getSessionStats, first call after a branchTo", branched))
    print(f"ContextMeter.stats in process, nothing estimated yet: {in_process * 1000:.1f} ms")


if __name__ == "__main__":
    main()
