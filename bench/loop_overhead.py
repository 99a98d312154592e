"""Benchmark: kernel overhead per loop iteration.

Each iteration is one real HTTP round trip to the local scripted server (real SSE), a
`read_file` call through the plugin host, approval policy and sandbox, and the persisted
session appends. Run: uv run python bench/loop_overhead.py [iterations]

It prints the wall time per iteration and the CPU time of the loop's own thread, each as
the median over all iterations and over the first and the last 50. The scripted server runs
in a process of its own, as a provider would (in this one it would compete for the GIL,
and its own reading of the growing requests would count), and keeps the connection open
between requests, as a hosted provider does; a second run, with a new connection per
request, shows what connecting costs. Targets (issue 23): ≤ 2 ms per
iteration on the reference machine; the last 50 at most 1.2× the first 50.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import LoopParams, run_loop
from rho_kernel.loop.observer import Observer
from rho_kernel.messages import ChatMessage
from rho_kernel.plugins import PluginHost
from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.session.store import Session
from rho_kernel.tools.registry import ToolRegistry


class IterationClock(Observer):
    """Timestamps every entry into the `thinking` state (one per model round trip)."""

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self.cpu: list[float] = []

    async def on_state_change(self, state: str) -> None:
        if state == "thinking":
            self.stamps.append(time.perf_counter())
            self.cpu.append(time.thread_time())


#: Runs the scripted server in its own process: `iterations` tool calls, then a text reply.
SERVER = """
import sys
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
iterations, keep_alive = int(sys.argv[1]), sys.argv[2] == "1"
with ScriptedServer(keep_alive=keep_alive) as server:
    server.add(*[tool_call_reply("read_file", {"path": "src.py"}) for _ in range(iterations)])
    server.add(text_reply("done"))
    print(server.chat_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our stdin
"""


@contextmanager
def scripted_server(iterations: int, keep_alive: bool) -> Iterator[str]:
    """The URL of a scripted server in another process, serving one benchmark run."""
    args = [sys.executable, "-c", SERVER, str(iterations), "1" if keep_alive else "0"]
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as server:
        assert server.stdout is not None and server.stdin is not None
        try:
            yield server.stdout.readline().strip()
        finally:
            server.stdin.close()


def _steps(stamps: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(stamps)]


async def measure(iterations: int, keep_alive: bool = True) -> tuple[list[float], list[float]]:
    """(wall, loop-thread CPU) seconds of each iteration, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / ".git").mkdir(parents=True)
        (root / "src.py").write_text("".join(f"line {i} = {i}\n" for i in range(40)))
        host = PluginHost(autoload=False)
        host.load_defaults(extra=(("rho-tools-fs", "rho_tools_fs.plugin"),))
        config = RhoConfig.model_validate({"agent": {"max_iterations": iterations + 1}})
        tools = ToolRegistry()
        for name, tool in host.collect("rho_register_tools", config=config, root=root):
            tools.register(tool, name)
        session = Session.create(root, home=Path(tmp))
        session.append_message(ChatMessage.system("bench"))
        with scripted_server(iterations, keep_alive) as url:
            service = ChatCompletionsService(url, None, "bench")
            clock = IterationClock()
            params = LoopParams(
                service=service,
                model="bench",
                tools=tools,
                plugins=host,
                config=config,
                root=SandboxRoot(root),
                observers=[clock],
            )
            result = await run_loop(session, "go", params)
            await service.aclose()
        session.close()
        assert result.finish_reason == "stop", result.finish_reason
        assert len(result.tool_calls) == iterations
    return _steps(clock.stamps), _steps(clock.cpu)


def _line(label: str, seconds: list[float]) -> str:
    in_order = [d * 1000 for d in seconds]
    ordered = sorted(in_order)
    window = min(50, max(1, len(in_order) // 4))
    first = statistics.median(in_order[:window])
    last = statistics.median(in_order[-window:])
    return (
        f"{label}: median {statistics.median(ordered):.2f} ms, "
        f"p90 {ordered[int(len(ordered) * 0.9) - 1]:.2f} ms; first {window} {first:.2f} ms, "
        f"last {window} {last:.2f} ms ({last / first:.2f}x)"
    )


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for keep_alive, connections in (
        (True, "one kept-alive connection"),
        (False, "a new connection per request"),
    ):
        wall, cpu = asyncio.run(measure(iterations, keep_alive))
        print(
            f"loop iteration (read_file round trip, persisted session), {len(wall)} iterations, "
            f"{connections}"
        )
        print(_line("  wall", wall))
        print(_line("  loop thread CPU", cpu))


if __name__ == "__main__":
    main()
