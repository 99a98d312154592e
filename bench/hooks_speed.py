"""Benchmark: what rho-hooks costs.

Run: uv run python bench/hooks_speed.py [runs]
1. exec → `ready` with rho-hooks installed and no hook configured, next to rho without the
   pack (target, issue 27: nothing measurable).
2. A prompt whose reply asks for `CALLS` list_dir calls, prompt to response: without the
   pack, with it and no hook, and with one PreToolUse hook `true`. Per call, the hook's cost
   beyond starting its process (`/bin/sh -c true` through rho's process runner, timed on its
   own) is the target (at most 10 ms).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_start import compile_workspace, finish, line_with, start, time_to_ready, until_ready

from rho_kernel.testing import ScriptedServer, text_reply, tool_calls_reply
from rho_rpc.distributions import RHO_DISTRIBUTIONS

CALLS = 40
WITHOUT_HOOKS = ",".join(sorted(RHO_DISTRIBUTIONS - {"rho-hooks"}))
WITH_HOOKS = ",".join(sorted(RHO_DISTRIBUTIONS))


def prompt_time(cwd: Path, env: dict[str, str], server: ScriptedServer) -> float:
    """Prompt → response of a turn of `CALLS` list_dir calls, in seconds."""
    args = ["--ephemeral", "-m", "m", "--endpoint", server.chat_url, "--approval-mode", "auto"]
    process = start(args, cwd, env)
    until_ready(process)
    server.add(tool_calls_reply([("list_dir", {})] * CALLS), text_reply("done"))
    assert process.stdin is not None
    request = {"jsonrpc": "2.0", "id": 1, "method": "prompt", "params": {"message": "go"}}
    started = time.perf_counter()
    process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    answer = json.loads(line_with(process, b'"id":1'))
    elapsed = time.perf_counter() - started
    assert answer["result"]["reply"] == "done", answer
    finish(process)
    return elapsed


def spawn_time(root: Path, runs: int) -> float:
    """What starting `/bin/sh -c true` through rho's process runner takes, in seconds."""
    from rho_kernel.process import run_process
    from rho_kernel.security import SandboxRoot

    sandbox = SandboxRoot(root, state_dir=root.parent / "state")

    async def spawn() -> float:
        started = time.perf_counter()
        await run_process(["/bin/sh", "-c", "true"], root=sandbox, input="{}")
        return time.perf_counter() - started

    return statistics.median(asyncio.run(spawn()) for _ in range(runs))


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    compile_workspace()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        home = Path(tmp) / "home"
        (home / ".rho").mkdir(parents=True)
        base = {**os.environ, "HOME": str(home)}
        without = {**base, "RHO_PLUGINS": WITHOUT_HOOKS}
        plain = {**base, "RHO_PLUGINS": WITH_HOOKS}
        ready: dict[str, list[float]] = {"without": [], "with": []}
        time_to_ready(project, plain)
        for _ in range(runs):  # alternated, so that both meet the same machine
            ready["without"].append(time_to_ready(project, without) * 1000)
            ready["with"].append(time_to_ready(project, plain) * 1000)
        prompts: dict[str, list[float]] = {"without": [], "no hook": [], "true": []}
        config = home / ".rho" / "config.toml"
        with ScriptedServer() as server:
            for _ in range(runs):
                config.write_text("")
                prompts["without"].append(prompt_time(project, without, server))
                prompts["no hook"].append(prompt_time(project, plain, server))
                config.write_text('[[hooks.PreToolUse]]\ncommand = "true"\n')
                prompts["true"].append(prompt_time(project, plain, server))
        spawn = spawn_time(project, runs * 5)
    a, b = statistics.median(ready["without"]), statistics.median(ready["with"])
    print(
        f"exec → ready: without rho-hooks {a:.0f} ms, with it (no hook) {b:.0f} ms ({b - a:+.0f} ms)"
    )
    per_call = {name: statistics.median(times) * 1000 / CALLS for name, times in prompts.items()}
    print(
        f"a turn of {CALLS} list_dir calls, per call: without the pack "
        f"{per_call['without']:.2f} ms, with it and no hook {per_call['no hook']:.2f} ms "
        f"({per_call['no hook'] - per_call['without']:+.3f} ms), with a `true` hook "
        f"{per_call['true']:.2f} ms"
    )
    hook = per_call["true"] - per_call["without"]
    print(
        f"a `true` hook adds {hook:.2f} ms per call; starting its process alone takes "
        f"{spawn * 1000:.2f} ms: {hook - spawn * 1000:+.2f} ms beyond the process start"
    )


if __name__ == "__main__":
    main()
