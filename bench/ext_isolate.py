"""Extension isolates: start + load of a typical extension (p50, target <= 50 ms), and the
round trip of a tool call (with and without a host call inside).

Run: python3 -m uv run python bench/ext_isolate.py [iterations]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from rho_ext_js import HostApi, Isolate, Limits

EXTENSION = """
const cache = new Map();
function normalize(q) { return q.trim().toLowerCase(); }
({
  name: "docs-search",
  version: "1.0.0",
  tools: [{
    name: "search",
    description: "Search documentation",
    risk: "read",
    parameters: { query: { type: "string", description: "Search query", required: true } },
    async execute(args) {
      const { query } = JSON.parse(args);
      const key = normalize(query);
      if (!cache.has(key)) cache.set(key, new URL("https://docs.example.com/search?q=" + encodeURIComponent(key)).href);
      return cache.get(key);
    },
  }, {
    name: "read",
    description: "Read a file",
    risk: "read",
    parameters: { path: { type: "string", required: true } },
    async execute(args) { return await rho.readFile(JSON.parse(args).path); },
  }],
  hooks: { async onLoad() { rho.log("info", "docs-search loaded"); } },
  commands: [{ name: "clear", description: "Clear the cache", async handler() { cache.clear(); return "ok"; } }],
});
"""


class _Host(HostApi):
    async def log(self, level: str, message: str, context: Any) -> None:
        pass

    async def read_file(self, path: str, context: Any) -> str:
        return "text of " + path

    async def write_file(self, path: str, content: str, context: Any) -> None:
        pass

    async def run_command(self, cmd: str, args: list[str], context: Any) -> dict[str, Any]:
        return {"stdout": "", "stderr": "", "exitCode": 0}

    async def fetch(self, request: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"status": 200, "statusText": "OK", "headers": {}, "body": ""}

    def cwd(self) -> str:
        return "/project"


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return f"p50 {statistics.median(ordered) * 1000:7.2f} ms   p90 {p90 * 1000:7.2f} ms"


async def main(iterations: int) -> None:
    host, limits = _Host(), Limits()
    warm = await Isolate.start("warm", host, limits)  # V8 platform initialisation happens once
    warm.close()
    starts = []
    for _ in range(iterations):
        began = time.perf_counter()
        iso = await Isolate.start("docs-search", host, limits)
        await iso.load(EXTENSION)
        starts.append(time.perf_counter() - began)
        iso.close()
    iso = await Isolate.start("docs-search", host, limits)
    await iso.load(EXTENSION)
    calls, host_calls = [], []
    for i in range(iterations * 10):
        began = time.perf_counter()
        await iso.call_tool("search", f'{{"query": "Item {i % 7}"}}')
        calls.append(time.perf_counter() - began)
        began = time.perf_counter()
        await iso.call_tool("read", '{"path": "README.md"}')
        host_calls.append(time.perf_counter() - began)
    iso.close()
    print(f"start + load        {_ms(starts)}   (target p50 <= 50 ms)")
    print(f"tool call           {_ms(calls)}")
    print(f"tool call + readFile {_ms(host_calls)}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
