"""Benchmark: how much of each model request a provider's prompt cache can reuse.

The workload: a scripted OpenAI-compatible server on 127.0.0.1 that reports usage as real
servers do (`prompt_tokens` = the request's bytes ÷ 4, `prompt_tokens_details.cached_tokens`
= the part it shares with the request before, ÷ 4), and a model that calls `read_file` on 28
files of about 3 KB, one per turn, then answers. The real `rho exec` runs it once per token
budget (`--token-budget 16000`, rho's default window, and a window nothing is fitted in).

The measure: a request is seen as a cache sees it, a list of elements (each tool definition,
then each message, in order). Its *uncacheable* bytes are those after the longest leading
run of elements equal to the previous request's; the session's *repeat share* is
1 − uncacheable ÷ all bytes sent. The figures are byte counts: deterministic, the same on
every machine (the e2e test `tests/e2e/test_context_reuse.py` asserts them through the same
functions).

Run: uv run python bench/context_reuse.py [budget …]   (a budget of 0: rho's default window)

Measured (bytes, so the same on any machine; 13.1 KB of tool definitions):
- fitted to the budget at every request (before fitting in steps): at 16000, 830.5 KB sent,
  317.3 KB uncacheable, repeat share 61.8 %; at the default window 1734 KB, 344.3 KB, 80.1 %;
- fitted in steps down to the low-water mark: at 16000, 752.0 KB sent, 128.9 KB
  uncacheable, 82.9 % (8 steps in 28 requests); at the default window 1625.5 KB, 146.5 KB,
  91.0 % (one step);
- unfitted (append-only, both): 1752.5 KB sent, 106.6 KB uncacheable, 93.9 %.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
from rho_kernel.testing.replies import ReplyHandler, SSEReply

RHO = str(Path(sys.executable).with_name("rho"))
FILES = 28
FILE_BYTES = 2700
MODEL = "bench-model"  # no family: rho starts at 2.5 bytes a token, then calibrates
TASK = "Read every module under src/ one by one, then say what they compute."
UNFITTED = 1_000_000  # a window no request of the workload comes near
BUDGETS = (16_000, 0, UNFITTED)


# ── the workload ────────────────────────────────────────────────────────────


def module_text(index: int) -> str:
    """File `index`'s text: lines of code, `FILE_BYTES` bytes (within a line)."""
    lines = []
    size = 0
    line_number = 0
    while size < FILE_BYTES - 60:
        line = (
            f"value_{index}_{line_number} = compute({index}, {line_number}, scale=31)"
            f"  # step {line_number} of module {index}\n"
        )
        lines.append(line)
        size += len(line)
        line_number += 1
    return "".join(lines)


def make_project(root: Path) -> Path:
    """A git project holding the workload's `FILES` modules; returns its root."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    source = root / "src"
    source.mkdir(exist_ok=True)
    for index in range(FILES):
        (source / f"module_{index:02}.py").write_text(module_text(index))
    return root


def elements(body: dict[str, Any]) -> list[str]:
    """A request as a prompt cache sees it: each tool definition, then each message, as
    canonical JSON (equal elements are equal strings)."""
    items = [*body.get("tools", []), *body.get("messages", [])]
    return [json.dumps(item, ensure_ascii=False, sort_keys=True) for item in items]


def shared_bytes(previous: Sequence[str], current: Sequence[str]) -> int:
    """The bytes of the longest leading run of `current`'s elements equal to `previous`'s."""
    shared = 0
    for before, now in zip(previous, current, strict=False):
        if before != now:
            break
        shared += len(now.encode())
    return shared


def _posts(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.method == "POST" and r.json is not None]


@dataclass
class MeasuredReply:
    """A scripted reply whose usage is the request's, as a real server reports it: the bytes
    of the request it answers ÷ 4, of which cached the part shared with the request before."""

    server: ScriptedServer
    reply: SSEReply

    def write(self, handler: ReplyHandler) -> None:
        """Send the reply with its usage computed from the request it answers."""
        posts = _posts(self.server)
        current = elements(posts[-1])
        previous = elements(posts[-2]) if len(posts) > 1 else []
        prompt = sum(len(e.encode()) for e in current) // 4
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": 8,
            "total_tokens": prompt + 8,
            "prompt_tokens_details": {"cached_tokens": shared_bytes(previous, current) // 4},
        }
        payloads = list(self.reply.payloads)
        payloads[-1] = {**payloads[-1], "usage": usage}  # type: ignore[dict-item]
        dataclasses.replace(self.reply, payloads=payloads).write(handler)


def script(server: ScriptedServer) -> None:
    """The model's side: one `read_file` per turn for every module, then the answer."""
    for index in range(FILES):
        reply = tool_call_reply(
            "read_file", {"path": f"src/module_{index:02}.py"}, call_id=f"call_{index:02}"
        )
        server.add(MeasuredReply(server, reply))
    server.add(MeasuredReply(server, text_reply("They all compute values.")))


# ── the measure ─────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Reuse:
    """What a session sent: per request its bytes and its uncacheable bytes."""

    sizes: list[int]
    uncacheable: list[int]

    @property
    def sent(self) -> int:
        """All bytes sent."""
        return sum(self.sizes)

    @property
    def fresh(self) -> int:
        """The bytes no cache could reuse."""
        return sum(self.uncacheable)

    @property
    def repeat_share(self) -> float:
        """1 − uncacheable ÷ all bytes sent."""
        return 1 - self.fresh / self.sent if self.sent else 0.0


def reads(body: dict[str, Any]) -> str:
    """The `read_file` results a request holds, oldest first: `W` sent whole, `o` shortened
    (an outline or a summary)."""
    return "".join(
        "W" if message["content"].startswith("<context>") else "o"
        for message in body["messages"]
        if message["role"] == "tool"
    )


def measure(bodies: Sequence[dict[str, Any]]) -> Reuse:
    """The reuse of a session's requests, in the order sent."""
    sizes, fresh = [], []
    previous: list[str] = []
    for body in bodies:
        current = elements(body)
        size = sum(len(e.encode()) for e in current)
        sizes.append(size)
        fresh.append(size - shared_bytes(previous, current))
        previous = current
    return Reuse(sizes, fresh)


# ── running rho ─────────────────────────────────────────────────────────────


def run(
    project: Path, home: Path, budget: int, env: dict[str, str] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run the workload through `rho exec --stream-json` at `budget` tokens (0: rho's
    default window) with `env` (default: this environment with `home` as HOME); (the
    request bodies, the `usage` notifications' params)."""
    environment = env if env is not None else {**os.environ, "HOME": str(home)}
    with ScriptedServer() as server:
        script(server)
        args = [RHO, "exec", "--ephemeral", "--stream-json", "-m", MODEL]
        args += ["--endpoint", server.chat_url, "--max-iterations", str(FILES + 5)]
        if budget:
            args += ["--token-budget", str(budget)]
        done = subprocess.run(
            [*args, TASK],
            cwd=project,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"rho exec failed ({done.returncode}): {done.stderr.decode()}")
        bodies = _posts(server)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    usage = [e["params"] for e in events if e.get("method") == "usage"]
    return bodies, usage


def _kb(size: float) -> str:
    return f"{size / 1000:.1f} KB"


def report(budget: int, bodies: list[dict[str, Any]], usage: list[dict[str, Any]]) -> str:
    """One line per run: sent, uncacheable, repeat share, the largest request vs budget."""
    reuse = measure(bodies)
    fitted = [u["context"].get("fitted") or {} for u in usage]
    largest = max((f.get("estimatedTokens", 0) for f in fitted), default=0)
    counted = max(reuse.sizes, default=0) // 4  # as the server counts: bytes ÷ 4
    prompt_budget = max((f.get("promptBudget", 0) for f in fitted), default=0)
    steps = sum(1 for f in fitted if (f.get("step") or {}).get("changed"))
    whole = [read.count("W") for read in map(reads, bodies[1:])]
    name = "default" if budget == 0 else "unfitted" if budget == UNFITTED else str(budget)
    return (
        f"budget {name:>8}: {len(bodies)} requests, sent {_kb(reuse.sent)}, uncacheable "
        f"{_kb(reuse.fresh)}, repeat share {reuse.repeat_share * 100:.1f} %; largest request "
        f"{largest} (estimated) / {counted} (server) of {prompt_budget} tokens; "
        f"{steps} requests changed the prefix; reads sent whole: "
        f"{min(whole, default=0)}–{max(whole, default=0)}\n"
        f"  uncacheable KB per request: "
        f"{' '.join(str(round(u / 1000, 1)) for u in reuse.uncacheable)}"
    )


def main() -> None:
    budgets = [int(arg) for arg in sys.argv[1:]] or list(BUDGETS)
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "project")
        home = Path(tmp) / "home"
        home.mkdir()
        for budget in budgets:
            bodies, usage = run(project, home, budget)
            print(report(budget, bodies, usage))


if __name__ == "__main__":
    main()
