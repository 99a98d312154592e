"""Benchmark: kernel overhead per loop iteration.

Each iteration is one real HTTP round trip to the local scripted server (real SSE), a
`read_file` call through the plugin host, approval policy and sandbox, and the persisted
session appends. Run: uv run python bench/loop_overhead.py [iterations]

It prints the wall time per iteration (the scripted server runs in a thread of the same
process, so its work counts too) and the CPU time of the loop's own thread, each as the
median over all iterations and over the first and the last 50. The server keeps the
connection open between requests, as a hosted provider does; a second run, with a new
connection per request, shows what connecting costs. Targets (issue 23): ≤ 2 ms per
iteration on the reference machine; the last 50 at most 1.2× the first 50.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import LoopParams, run_loop
from rho_kernel.loop.observer import Observer
from rho_kernel.messages import ChatMessage
from rho_kernel.plugins import PluginHost
from rho_kernel.providers.chat_completions import ChatCompletionsService
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.session.store import Session
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
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
        with ScriptedServer(keep_alive=keep_alive) as server:
            server.add(
                *[tool_call_reply("read_file", {"path": "src.py"}) for _ in range(iterations)]
            )
            server.add(text_reply("done"))
            service = ChatCompletionsService(server.chat_url, None, "bench")
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
