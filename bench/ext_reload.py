"""Extensions end to end in the manager: the first load of 5 typical TypeScript extensions
(discovery, type stripping, bundling, isolate start, manifest, tool registration, onLoad),
and a reload after all 5 changed (target <= 250 ms), plus a reload with nothing changed.

Run: python3 -m uv run python bench/ext_reload.py [rounds]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_ext_js.manager import ExtensionManager
from rho_kernel.runtime import Runtime, RuntimeOptions

MODULE = """/// <reference path="./rho.d.ts" />
import {{ normalize }} from "./text";

interface Hit {{ title: string; score: number }}
const cache = new Map<string, Hit[]>();

export default {{
  name: "ext{n}",
  version: "1.0.{round}",
  tools: [{{
    name: "search{n}",
    description: "Search the docs ({round})",
    risk: "read" as const,
    parameters: {{ query: {{ type: "string", description: "Query", required: true }} }},
    async execute(args: string): Promise<string> {{
      const {{ query }} = JSON.parse(args) as {{ query: string }};
      const key = normalize(query);
      const hits: Hit[] = cache.get(key) ?? [{{ title: key, score: 1 }}];
      cache.set(key, hits);
      return hits.map((h) => `${{h.title}} (${{h.score}})`).join("\\n");
    }},
  }}],
  hooks: {{ async onLoad() {{ rho.log("debug", "ext{n} loaded"); }} }},
  commands: [{{ name: "clear{n}", description: "Clear the cache", handler: () => {{ cache.clear(); return "ok"; }} }}],
}};
"""

HELPER = """export function normalize(text: string): string {
  return text.trim().toLowerCase().replace(/\\s+/g, " ");
}
"""


def _write(home: Path, round_: int) -> None:
    for n in range(5):
        folder = home / ".rho" / "extensions" / f"ext{n}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "mod.ts").write_text(MODULE.format(n=n, round=round_))
        (folder / "text.ts").write_text(HELPER)


async def _measure(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        (root / ".git").mkdir(parents=True)
        _write(home, 0)
        options = RuntimeOptions(
            cwd=root,
            root=root,
            home=home,
            ephemeral=True,
            model="bench",
            endpoint="http://127.0.0.1:9/v1",
        )
        runtime = Runtime.build(options)
        manager = ExtensionManager(runtime, home=home)
        start = time.perf_counter()
        report = await manager.reload()
        first = time.perf_counter() - start
        assert len(report.added) == 5, report
        changed, unchanged = [], []
        for round_ in range(1, rounds + 1):
            _write(home, round_)
            start = time.perf_counter()
            report = await manager.reload()
            changed.append(time.perf_counter() - start)
            assert len(report.reloaded) == 5, report
            start = time.perf_counter()
            await manager.reload()
            unchanged.append(time.perf_counter() - start)
        manager.close()
    print(f"first load of 5     {first * 1000:7.1f} ms (includes importing V8 and tree-sitter)")
    print(
        f"reload, 5 changed   p50 {statistics.median(changed) * 1000:7.1f} ms   max {max(changed) * 1000:7.1f} ms"
    )
    print(f"reload, unchanged   p50 {statistics.median(unchanged) * 1000:7.1f} ms")


if __name__ == "__main__":
    asyncio.run(_measure(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
