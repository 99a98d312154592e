"""Benchmark: context fitting.

1. The cost of fitting per turn at 1k, 10k and 100k path entries: a session of read_file
   turns (a ~1.5 KB result each, with its recorded outline) fitted into the default budget
   (32768 − 8192 tokens at 2.5 bytes a token, 8.4 KB of tool definitions). The first fit
   builds the plan from the whole path; every later turn appends one call and its result
   and fits again, which costs what changed, not the session's length.
2. A prompt on a resumed 20,000-entry session, fitted: the kernel time of `Runtime.prompt`
   (the model is a local scripted server answering at once), its fitting share, and a
   second prompt on the same session.

Run: uv run python bench/fitting.py [turns]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rho_kernel.context import ContextFitter
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_kernel.session.store import Session
from rho_kernel.testing import ScriptedServer, text_reply

BUDGET = 32768 - 8192
RATIO = 2.5
OVERHEAD = 8_400
RESULT = "".join(f"{i:>3}#ABCD:    value_{i} = compute({i}) + offset\n" for i in range(36))


def _append_turn(session: Session, index: int) -> None:
    call = ToolCall(
        id=f"call_{index}",
        function=FunctionCall(name="read_file", arguments=json.dumps({"path": f"m{index}.py"})),
    )
    session.append_message(ChatMessage.assistant("", tool_calls=[call]))
    result = ChatMessage.tool_result(call.id, f"<context>\n{RESULT}<context:end>", False)
    result.outline = f"read_file m{index}.py: 36 lines"
    session.append_message(result)


def _session(entries: int, session: Session) -> Session:
    session.append_message(ChatMessage.system("You are rho. " * 100))
    session.append_message(ChatMessage.user("Audit every module and report the values."))
    for index in range((entries - 2) // 2):
        _append_turn(session, index)
    return session


def per_turn(entries: int, turns: int) -> tuple[float, float, int]:
    """(first fit ms, median per-turn fit ms, messages sent) at `entries` path entries."""
    session = _session(entries, Session.in_memory(Path(tempfile.gettempdir())))
    fitter = ContextFitter()
    started = time.perf_counter()
    fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, overhead_bytes=OVERHEAD)
    first = (time.perf_counter() - started) * 1000
    durations = []
    sent = 0
    for turn in range(turns):
        _append_turn(session, entries + turn)
        started = time.perf_counter()
        result = fitter.fit(session, budget_tokens=BUDGET, ratio=RATIO, overhead_bytes=OVERHEAD)
        durations.append((time.perf_counter() - started) * 1000)
        assert not result.rebuilt and result.measured == 2
        sent = len(result.messages)
    return first, statistics.median(durations), sent


class _TimedFitter(ContextFitter):
    def __init__(self) -> None:
        super().__init__()
        self.spent: list[float] = []

    def fit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return super().fit(*args, **kwargs)
        finally:
            self.spent.append((time.perf_counter() - started) * 1000)


async def prompt_on_resumed(entries: int) -> list[tuple[float, float, float]]:
    """(prompt ms, fitting ms, context stats ms) of two prompts on a resumed session of
    `entries` entries; a first prompt on an empty session loads the provider client (a
    once-per-process cost, not one of the session)."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        home.mkdir()
        with Session.create(project, home=home) as session:
            _session(entries, session)
            path = session.path
        assert path is not None
        with ScriptedServer() as server:
            quiet = {"prompt_tokens": 0, "completion_tokens": 1, "total_tokens": 1}
            server.add(*[text_reply("ok", usage=quiet) for _ in range(3)])
            runtime = Runtime.build(
                RuntimeOptions(
                    cwd=project,
                    home=home,
                    endpoint=server.chat_url,
                    model="bench-model",
                    ephemeral=True,
                    plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
                )
            )
            await runtime.prompt("warm up")  # loads the HTTP client and its TLS context
            runtime.resume(path)
            fitter = _TimedFitter()
            runtime.fitter = fitter
            meter = runtime.meter()
            stats: list[float] = []
            measured = meter.stats

            def timed_stats(session: Session) -> Any:
                started = time.perf_counter()
                try:
                    return measured(session)
                finally:
                    stats.append((time.perf_counter() - started) * 1000)

            meter.stats = timed_stats  # type: ignore[method-assign]
            timings = []
            for message in ("What did you find?", "And then?"):
                started = time.perf_counter()
                await runtime.prompt(message)
                timings.append((time.perf_counter() - started) * 1000)
            await runtime.aclose()
    return [(timings[i], fitter.spent[i], stats[i]) for i in range(2)]


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"fitting per turn (budget {BUDGET} tokens, {turns} turns after the first fit):")
    for entries in (1_000, 10_000, 100_000):
        first, median, sent = per_turn(entries, turns)
        print(
            f"  {entries:>7} entries: first fit {first:8.1f} ms; per turn median "
            f"{median:.3f} ms ({sent} messages sent)"
        )
    (first, first_fit, first_stats), (second, second_fit, second_stats) = asyncio.run(
        prompt_on_resumed(20_000)
    )
    print(
        "prompt on a resumed 20000-entry session (kernel time; the model answers at once): "
        f"first {first:.1f} ms (fitting {first_fit:.1f} ms, context stats {first_stats:.1f} ms), "
        f"next {second:.1f} ms (fitting {second_fit:.2f} ms, context stats {second_stats:.1f} ms)"
    )


if __name__ == "__main__":
    main()
