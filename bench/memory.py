"""Benchmark: the knowledge base at 100,000 documents of about 500 bytes.

Run: uv run python bench/memory.py [documents]   (default 100000)

Documents are synthetic prose drawn from a 20,000-word vocabulary with a Zipf-like
distribution (a few very common words, a long tail of rare ones), like real notes.
It prints:

- `ingest create`: `Memory.create` one document at a time inside one `batch()` (the first
  fifth of the documents), in documents per second;
- `ingest`: `Memory.create_many` in drafts of 1,000 inside one `batch()` (one transaction:
  dedup lookup, insert, FTS5 trigger), in documents per second;
- `search`: p50 / p99 / max of `Memory.search` (limit 10, bm25 ranked, snippets) over
  1,000 queries of one to three words (mostly tail words, some common ones, some prefix
  and phrase queries), on the warm, freshly built index;
- `search common`: the same for queries made only of the 20 most common words, whose
  postings cover most documents (the worst case for bm25 ranking);
- `ingest files`: `ingest` of 500 Markdown files of five sections each into an empty
  knowledge base, then again with nothing changed (size and mtime checks only).

Targets: ingest >= 5,000 docs/s; search p50 <= 5 ms, p99 <= 25 ms; ingest files <= 1 s,
unchanged re-ingest <= 100 ms.
"""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_kernel.security import SandboxRoot
from rho_memory import Draft, Memory, ingest

VOCABULARY = 20_000


def _words(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choices(letters, k=rng.randint(3, 10))))
    return sorted(words)


def _documents(count: int, words: list[str], rng: random.Random) -> list[tuple[str, str]]:
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    out = []
    for n in range(count):
        body_words = rng.choices(words, cum_weights=cumulative, k=75)
        body = f"note {n}: " + " ".join(body_words)
        out.append((" ".join(rng.choices(words, cum_weights=cumulative, k=4)), body[:520]))
    return out


def _queries(words: list[str], rng: random.Random, common: bool) -> list[str]:
    pool = words[:20] if common else words
    queries = []
    for n in range(1000):
        picked = rng.sample(pool, rng.randint(1, 3))
        if not common and n % 10 == 0:
            queries.append(picked[0][:3] + "*")
        elif not common and n % 10 == 1:
            queries.append('"' + " ".join(picked) + '"')
        else:
            queries.append(" ".join(picked))
    return queries


def _latencies(memory: Memory, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        memory.search(query, limit=10)
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def _report(label: str, times: list[float]) -> None:
    p50 = statistics.median(times)
    p99 = times[int(len(times) * 0.99) - 1]
    print(f"{label:14} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   max {times[-1]:6.2f} ms")


def _ingest_files(words: list[str], rng: random.Random) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        for n in range(500):
            folder = project / "docs" / f"area{n % 20}"
            folder.mkdir(parents=True, exist_ok=True)
            sections = (
                f"## {' '.join(rng.sample(words, 2))}\n{' '.join(rng.choices(words, k=80))}\n"
                for _ in range(5)
            )
            (folder / f"page{n}.md").write_text(f"# Page {n}\n" + "\n".join(sections))
        root = SandboxRoot(project)
        with Memory.open(project / ".rho" / "memory.db") as memory:
            start = time.perf_counter()
            report = ingest(memory, root)
            first = time.perf_counter() - start
            start = time.perf_counter()
            again = ingest(memory, root)
            second = time.perf_counter() - start
        print(f"ingest files   {report.files} files, {report.documents} documents in {first:.2f} s")
        print(f"re-ingest      {again.unchanged} unchanged in {second * 1000:.0f} ms")


def main() -> None:
    """Build the knowledge base and print the figures."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(7)
    words = _words(rng)
    documents = _documents(count, words, rng)
    mean = statistics.mean(len(body.encode()) for _, body in documents)
    with tempfile.TemporaryDirectory() as tmp:
        with Memory.open(Path(tmp) / "one-by-one.db") as memory:
            start = time.perf_counter()
            with memory.batch():
                for title, body in documents[: count // 5]:
                    memory.create(title, body, tags=("bench",))
            elapsed = time.perf_counter() - start
            rate = count // 5 / elapsed
            print(f"ingest create  {rate:,.0f} docs/s (first {count // 5} one by one)")
        memory = Memory.open(Path(tmp) / "memory.db")
        start = time.perf_counter()
        with memory.batch():
            for first in range(0, count, 1000):
                drafts = documents[first : first + 1000]
                memory.create_many(Draft(title, body, ("bench",)) for title, body in drafts)
        elapsed = time.perf_counter() - start
        stats = memory.stats()
        print(f"documents      {stats.documents} of {mean:.0f} bytes, file {stats.bytes >> 20} MiB")
        print(f"ingest         {count / elapsed:,.0f} docs/s ({elapsed:.1f} s, one transaction)")
        _report("search", _latencies(memory, _queries(words, rng, common=False)))
        _report("search common", _latencies(memory, _queries(words, rng, common=True)))
        memory.close()
    _ingest_files(words, rng)


if __name__ == "__main__":
    main()
