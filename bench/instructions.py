"""Benchmark: instructions (valgrind's callgrind) from exec to `ready`, to the first model
request, and per loop iteration, with wall-clock medians beside them.

Run: uv run python bench/instructions.py [--wall RUNS] [--loop N1,N2,...]

Instruction counts hold on any machine and barely move between runs; wall-clock figures are
noisy on a shared machine (the medians of `RUNS` runs are printed). Every figure is of the
real `rho` process, with every workspace package installed, its sources byte-compiled (as
an installed rho's are) and a warm entry-point cache (a `~/.rho` that exists):

- exec → `ready`: rho (`--ephemeral -m m`) ends the moment it has written its `ready` line
  (`os._exit` in a wrapper that runs rho as its console script does), so nothing rho does
  after it is counted;
- exec → first model request: a `prompt` is written at once, and the scripted server on
  127.0.0.1 ends rho with SIGUSR1 (whose default action ends the process; callgrind writes
  its counts then) as soon as the request has arrived;
- the loop: a prompt whose model calls a trivial tool (a third-party plugin's `noop`, which
  returns "ok") N times (with a new argument each time, as no stuck-loop guard steps in),
  then answers (`--max-iterations N+1`); the whole process from exec to exit after end of
  input. Per iteration: (total(N2) − total(N1)) / (N2 − N1); the first 50 iterations are
  total(60) − total(10), the last 50 total(N) − total(N − 50).

Targets: ready ≤ 300 M, first request ≤ 1,000 M,
loop ≤ 5 M per iteration with the last 50 within 1.2× the first 50. The third-party floor
(`import pydantic, httpx, asyncio, pluggy`, 724 M) is printed too; what the first request
really imports of the standard library and third parties (httpx's client built, pydantic's
models made) costs about 940 M on its own. Measured with this script, before `ready` went
out ahead of the runtime: ready 944 M, first request 1,467 M, loop 7.49 M (first 50 6.82 M,
last 50 7.86 M); after: 170 M, 1,488 M, 7.45 M (6.83 M, 7.84 M); with the tool definitions'
wire form kept between requests: loop 5.61 M (first and last 50 alike).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rho_start import compile_workspace

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
from rho_kernel.testing.replies import ReplyHandler

PYTHON = sys.executable

#: Runs rho as its console script does; with `RHO_BENCH_EXIT_AT_READY` set, the process
#: ends (os._exit) right after the `ready` line is written.
WRAPPER = """\
import os, sys
if os.environ.get("RHO_BENCH_EXIT_AT_READY"):
    _write = os.write
    def write(fd, data):
        written = _write(fd, data)
        if fd == 1 and b'"ready"' in bytes(data):
            os._exit(0)
        return written
    os.write = write
from rho_rpc.cli import main
sys.argv[0] = "rho"
sys.exit(main())
"""

#: A third-party plugin with the most trivial tool there is.
NOOP_PLUGIN = '''\
from rho_kernel import hookimpl, tool


@tool(risk="read")
def noop(n: int) -> str:
    """Do nothing with `n`."""
    return "ok"


@hookimpl
def rho_register_tools():
    return [noop]
'''

FLOOR = "import pydantic, httpx, asyncio, pluggy"


@dataclass
class Place:
    """Where the benchmark runs rho: the project, HOME, the wrapper and the plugin site."""

    project: Path
    home: Path
    wrapper: Path
    site: Path
    out: Path

    def env(self, *, noop: bool = False, **extra: str) -> dict[str, str]:
        """rho's environment (with the `noop` plugin installed when asked)."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("RHO_", "OPENAI", "OPENROUTER", "PYTHONDONTWRITEBYTECODE"))
        }
        # One HOME for each environment: each keeps its own entry-point cache warm.
        env.update({"HOME": str(self.home / ("noop" if noop else "plain")), "NO_COLOR": "1"})
        if noop:
            env["PYTHONPATH"] = str(self.site)
        env.update(extra)
        return env


def make_place(tmp: Path) -> Place:
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    for home in ("plain", "noop"):  # the entry-point cache is kept in ~/.rho
        (tmp / "home" / home / ".rho").mkdir(parents=True)
    tools = tmp / "wrapper"
    tools.mkdir()
    (tools / "run_rho.py").write_text(WRAPPER)
    site = tmp / "site"
    dist = site / "rho_bench_noop-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: rho-bench-noop\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[rho]\nbench-noop = rho_bench_noop\n")
    (site / "rho_bench_noop.py").write_text(NOOP_PLUGIN)
    out = tmp / "callgrind"
    out.mkdir()
    return Place(project, tmp / "home", tools / "run_rho.py", site, out)


def under_callgrind(place: Place, name: str) -> list[str]:
    return [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={place.out / name}",
        PYTHON,
    ]


def counted(place: Place, name: str) -> int:
    """The instructions callgrind counted in the run whose output is `name`."""
    for line in (place.out / name).read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise RuntimeError(f"callgrind wrote no totals for {name}")


# ── the three runs ───────────────────────────────────────────────────────────


def run_to_ready(place: Place, prefix: Sequence[str]) -> float:
    """exec → `ready` (the process ends there); wall seconds."""
    started = time.perf_counter()
    subprocess.run(
        [*prefix, str(place.wrapper), "--ephemeral", "-m", "m"],
        cwd=place.project,
        env=place.env(RHO_BENCH_EXIT_AT_READY="1"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - started


class _EndRho:
    """A scripted reply that ends rho (SIGUSR1) once its request has arrived."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def write(self, handler: ReplyHandler) -> None:
        os.kill(self.pid, signal.SIGUSR1)
        handler.send_response(500)
        handler.end_headers()


def run_to_first_request(place: Place, prefix: Sequence[str]) -> float:
    """exec → the scripted server has the first model request of a prompt written at once;
    wall seconds."""
    with ScriptedServer() as server:
        started = time.perf_counter()
        process = subprocess.Popen(
            [*prefix, str(place.wrapper), "--ephemeral", "-m", "m", "--endpoint", server.chat_url],
            cwd=place.project,
            env=place.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        server.add(_EndRho(process.pid))
        assert process.stdin is not None
        prompt = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "hi"}}
        process.stdin.write(json.dumps(prompt).encode() + b"\n")
        process.stdin.flush()
        server.wait_for_requests(1, timeout=600)
        elapsed = time.perf_counter() - started
        process.wait(timeout=600)
        process.stdin.close()
    return elapsed


def run_loop(place: Place, prefix: Sequence[str], iterations: int) -> float:
    """A prompt whose model calls `noop` `iterations` times, then end of input; wall seconds
    from exec to exit."""
    with ScriptedServer(keep_alive=True) as server:
        calls = [tool_call_reply("noop", {"n": n}) for n in range(iterations)]
        server.add(*calls, text_reply("done"))
        started = time.perf_counter()
        flags = ["--ephemeral", "-m", "m", "--endpoint", server.chat_url]
        process = subprocess.Popen(
            [*prefix, str(place.wrapper), *flags, "--max-iterations", str(iterations + 1)],
            cwd=place.project,
            env=place.env(noop=True),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert process.stdin is not None and process.stdout is not None
        prompt = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "go"}}
        process.stdin.write(json.dumps(prompt).encode() + b"\n")
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("rho ended before answering the prompt")
            message = json.loads(line)
            if message.get("id") == 1:
                break
        assert message.get("result", {}).get("reply") == "done", message
        assert server.remaining == 0, f"{server.remaining} replies left"
        process.stdin.close()
        process.stdout.read()
        process.wait(timeout=600)
        elapsed = time.perf_counter() - started
    return elapsed


def floor_instructions(place: Place) -> tuple[int, int]:
    """Instructions of `python -c pass` and of importing the third-party floor."""
    counts = []
    for name, code in (("bare", "pass"), ("floor", FLOOR)):
        subprocess.run(
            [*under_callgrind(place, name), "-c", code],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        counts.append(counted(place, name))
    return counts[0], counts[1]


# ── report ───────────────────────────────────────────────────────────────────


def mega(count: float) -> str:
    return f"{count / 1e6:,.0f} M"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wall", type=int, default=10, metavar="RUNS", help="wall-clock runs")
    parser.add_argument(
        "--loop", default="10,60,250,300", help="loop iteration counts (first two: 10 and 60)"
    )
    args = parser.parse_args()
    loop_counts = [int(n) for n in args.loop.split(",")]
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        place = make_place(Path(tmp))
        plain = [PYTHON]
        run_to_ready(place, plain)  # fills the entry-point cache, warms the file cache
        run_loop(place, plain, 1)  # the same with the `noop` plugin
        bare, floor = floor_instructions(place)
        run_to_ready(place, under_callgrind(place, "ready"))
        ready = counted(place, "ready")
        run_to_first_request(place, under_callgrind(place, "first"))
        first = counted(place, "first")
        loop: dict[int, int] = {}
        for n in loop_counts:
            run_loop(place, under_callgrind(place, f"loop{n}"), n)
            loop[n] = counted(place, f"loop{n}")
        wall_ready = statistics.median(run_to_ready(place, plain) for _ in range(args.wall))
        wall_first = statistics.median(run_to_first_request_plain(place) for _ in range(args.wall))
        low, high = loop_counts[0], loop_counts[-1]
        wall_loop = [
            statistics.median(run_loop(place, plain, n) for _ in range(max(3, args.wall // 3)))
            for n in (low, high)
        ]
    print(f"python -c pass: {mega(bare)}; third-party floor ({FLOOR}): {mega(floor)}")
    print(f"exec → ready: {mega(ready)} (wall median {wall_ready * 1000:.0f} ms)")
    print(f"exec → first model request: {mega(first)} (wall median {wall_first * 1000:.0f} ms)")
    per = (loop[high] - loop[low]) / (high - low)
    wall_per = (wall_loop[1] - wall_loop[0]) / (high - low)
    print(
        f"loop: {per / 1e6:.2f} M per iteration over {low}..{high} iterations "
        f"(wall ≈ {wall_per * 1000:.2f} ms per iteration)"
    )
    if 60 in loop and 10 in loop and high - 50 in loop:
        first50 = (loop[60] - loop[10]) / 50
        last50 = (loop[high] - loop[high - 50]) / 50
        print(
            f"loop: first 50 iterations {first50 / 1e6:.2f} M each, last 50 "
            f"{last50 / 1e6:.2f} M each ({last50 / first50:.2f}×)"
        )
    for n, count in loop.items():
        print(f"  {n} iterations, exec → exit: {mega(count)}")


def run_to_first_request_plain(place: Place) -> float:
    """exec → first model request without callgrind (the reply ends rho too)."""
    return run_to_first_request(place, [PYTHON])


if __name__ == "__main__":
    main()
