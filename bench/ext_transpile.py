"""Benchmark: TypeScript stripping and module bundling of a typical 300-line extension.

Run: uv run python bench/ext_transpile.py [runs]   (default 50)

The extension (written to a temporary folder) is a `mod.ts` in the book's manifest format
with six tools, hooks and a command, importing two helper modules (`lib/http.ts`,
`lib/cache.ts`) that use interfaces, generics, classes with typed fields, an enum and
`as const`: about 300 lines in all. It prints the median (p50) and best of:

- `strip`: `strip_types` of the three sources (in memory);
- `bundle`: `bundle()` of the folder (read, strip, parse, rewrite, assemble);
- `isolate`: a new `MiniRacer` context;
- `load`: evaluating the bundled script in that context (manifest built);
- `total`: bundle + isolate + load, the cost of loading one extension.

The budget is 50 ms for `total`; the transform should take only a few ms of it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from py_mini_racer import MiniRacer

from rho_ext_js.modules import bundle
from rho_ext_js.typescript import strip_types

HTTP = """\
export interface Response<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

export enum Method { Get = "GET", Post = "POST" }

export class HttpError extends Error {
  public readonly status: number;
  constructor(status: number, message?: string) {
    super(message ?? `HTTP ${status}`);
    this.status = status;
  }
}

export async function getJson<T>(url: string, method: Method = Method.Get): Promise<Response<T>> {
  const resp = await fetch(url, { method });
  if (!resp.ok) throw new HttpError(resp.status);
  const body = (await resp.json()) as T;
  return { status: resp.status, body, headers: {} };
}

export function query(params: Record<string, string | number | undefined>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.join("&");
}
"""

CACHE = """\
export interface Entry<V> {
  value: V;
  expires: number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private hits: number = 0;
  private misses: number = 0;
  constructor(private readonly ttlMs: number, private readonly limit: number = 100) {}

  get(key: K, now: number = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expires < now) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry.value;
  }

  set(key: K, value: V, now: number = Date.now()): void {
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  stats(): { hits: number; misses: number; size: number } {
    return { hits: this.hits, misses: this.misses, size: this.entries.size };
  }
}

export default new TtlCache<string, string>(60_000);
"""

TOOL = """\
    {
      name: "docs_{n}",
      description: "Search documentation set {n}",
      risk: "read" as const,
      parameters: {
        query: { type: "string", description: "Search query", required: true },
        limit: { type: "number", description: "Maximum results" },
      },
      async execute(args: string): Promise<string> {
        const { query: q, limit = 5 } = JSON.parse(args) as SearchArgs;
        const key = `{n}:${q}:${limit}`;
        const cached = cache.get(key);
        if (cached !== undefined) return cached;
        try {
          const url = `https://docs.example.com/{n}/search?${query({ q, limit })}`;
          const resp = await getJson<Hit[]>(url);
          const text = format(resp.body.slice(0, limit));
          cache.set(key, text);
          return text;
        } catch (e) {
          const status = e instanceof HttpError ? e.status : 0;
          return JSON.stringify({ error: (e as Error).message, status });
        }
      },
    },
"""

MOD_HEAD = """\
/// <reference path="../types/rho.d.ts" />
import cache from "./lib/cache";
import { getJson, HttpError, query } from "./lib/http";

interface SearchArgs {
  query: string;
  limit?: number;
}

interface Hit {
  title: string;
  url: string;
  score: number;
}

type Level = "trace" | "debug" | "info" | "warn" | "error";

function format(hits: readonly Hit[]): string {
  return hits.map((h: Hit, i: number) => `${i + 1}. ${h.title} <${h.url}> (${h.score.toFixed(2)})`).join("\\n");
}

function note(level: Level, message: string): void {
  rho.log(level, message);
}

export default {
  name: "docs",
  version: "1.2.0",
  tools: [
"""

MOD_TAIL = """\
  ],
  hooks: {
    async onLoad() {
      note("info", "docs extension loaded");
    },
    async onToolCall(args: string) {
      const { toolName } = JSON.parse(args) as { toolName: string };
      note("debug", `tool called: ${toolName}`);
    },
    async onToolResult(args: string) {
      const { isError } = JSON.parse(args) as { isError: boolean };
      if (isError) note("warn", "a tool failed");
    },
  },
  commands: [{
    name: "cache-stats",
    description: "Show cache statistics",
    async handler(args: string) {
      return JSON.stringify(cache.stats());
    },
  }],
};
"""

PRELUDE = "globalThis.rho = { log() {} };\n"


def write_extension(root: Path) -> dict[str, str]:
    """The extension's files under `root`; returns them by name."""
    files = {
        "mod.ts": MOD_HEAD + "".join(TOOL.replace("{n}", str(n)) for n in range(6)) + MOD_TAIL,
        "lib/http.ts": HTTP,
        "lib/cache.ts": CACHE,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return files


def measure(runs: int, fn: Callable[[], object]) -> list[float]:
    """Milliseconds per call of `fn`, `runs` times (after one warm-up call)."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    """Print p50 and best for each step."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = write_extension(root)
        lines = sum(text.count("\n") for text in files.values())
        script = bundle(root / "mod.ts", root, label="docs").script
        contexts: list[MiniRacer] = []

        def isolate() -> None:
            contexts.append(MiniRacer())

        def load() -> None:
            ctx = contexts.pop() if contexts else MiniRacer()
            ctx.eval(PRELUDE + f"globalThis.manifest = {script};")
            ctx.close()

        def total() -> None:
            ctx = MiniRacer()
            ctx.eval(PRELUDE + f"globalThis.manifest = {bundle(root / 'mod.ts', root).script};")
            ctx.close()

        results = {
            "strip": measure(runs, lambda: [strip_types(t) for t in files.values()]),
            "bundle": measure(runs, lambda: bundle(root / "mod.ts", root, label="docs")),
            "isolate": measure(runs, isolate),
            "load": measure(runs, load),
            "total": measure(runs, total),
        }
        for ctx in contexts:
            ctx.close()
    print(f"extension: {len(files)} modules, {lines} lines; {runs} runs")
    for name, times in results.items():
        print(f"{name:8} p50 {statistics.median(times):7.2f} ms   best {min(times):7.2f} ms")


if __name__ == "__main__":
    main()
