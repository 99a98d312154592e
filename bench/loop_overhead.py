"""Benchmark: kernel overhead per loop iteration.

Each iteration is one real HTTP round trip to the local scripted server (real SSE), a
`read_file` call through the plugin host, approval policy and sandbox, and the persisted
session appends. Run: uv run python bench/loop_overhead.py [iterations]
"""

from __future__ import annotations

import asyncio
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

    async def on_state_change(self, state: str) -> None:
        if state == "thinking":
            self.stamps.append(time.perf_counter())


async def measure(iterations: int) -> list[float]:
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
        with ScriptedServer() as server:
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
    return [b - a for a, b in zip(clock.stamps, clock.stamps[1:], strict=False)]


def main() -> None:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    in_order = [d * 1000 for d in asyncio.run(measure(iterations))]
    durations = sorted(in_order)
    n = len(durations)
    tenth = max(1, n // 10)
    print(
        f"loop iteration (read_file round trip, persisted session) over {n} iterations: "
        f"median {statistics.median(durations):.2f} ms, p90 {durations[int(n * 0.9) - 1]:.2f} ms; "
        f"first tenth {statistics.median(in_order[:tenth]):.2f} ms, "
        f"last tenth {statistics.median(in_order[-tenth:]):.2f} ms"
    )


if __name__ == "__main__":
    main()
