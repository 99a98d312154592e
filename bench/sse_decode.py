"""Benchmark: decode throughput of the recorded provider streams, without HTTP.

Run: uv run python bench/sse_decode.py [megabytes]   (default 20 MB per measurement)

Every fixture in tests/fixtures/streams is turned into the SSE bytes the scripted server sends
for it (`fixture_reply(...).body()`: comments, `event:` lines and `[DONE]` as recorded), cut
into 8 KiB reads like a network would deliver them, and repeated until each measurement covers
at least the requested size. It times:

- the SSE parser alone (`SSEParser.feed`/`close`) over all fixtures;
- the full decode path of each protocol: parser + `ChatStreamDecoder` for the `chat--` files,
  parser + `ResponsesStreamDecoder` for the `responses--` files (a fresh decoder per stream,
  stopping at its terminal event, then `finish()`; streams that end in an in-band error count
  as decoded when the decoder raises its `ProviderError`).

It prints MB/s (1 MB = 10^6 bytes of SSE input) for each, best of a few runs; the target for
the full decode is at least 20 MB/s.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from rho_kernel.providers.chat_completions import ChatStreamDecoder
from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.responses import ResponsesStreamDecoder
from rho_kernel.providers.sse import SSEParser
from rho_kernel.providers.streaming import StreamDecoder
from rho_kernel.testing.replies import fixture_reply

STREAMS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "streams"
READ_SIZE = 8192
RUNS = 3
TARGET_MB_S = 20.0

Stream = list[bytes]  # one response body as a list of network reads


def load(prefix: str) -> list[tuple[str, bytes]]:
    """(stem, SSE body) of every fixture whose name starts with `prefix`."""
    return [
        (path.stem, fixture_reply(path).body()) for path in sorted(STREAMS.glob(f"{prefix}*.jsonl"))
    ]


def as_reads(body: bytes) -> Stream:
    return [body[i : i + READ_SIZE] for i in range(0, len(body), READ_SIZE)]


def corpus(bodies: list[tuple[str, bytes]], minimum: int) -> tuple[list[Stream], int]:
    """The bodies repeated until they total at least `minimum` bytes; also the total."""
    one_round = sum(len(body) for _, body in bodies)
    rounds = max(1, -(-minimum // one_round))
    streams = [as_reads(body) for _, body in bodies] * rounds
    return streams, one_round * rounds


def parse_only(streams: list[Stream]) -> int:
    events = 0
    for reads in streams:
        parser = SSEParser()
        for chunk in reads:
            events += len(parser.feed(chunk))
        events += len(parser.close())
    return events


def decode_all(streams: list[Stream], new_decoder: Callable[[], StreamDecoder]) -> int:
    decoded = 0
    for reads in streams:
        parser = SSEParser()
        decoder = new_decoder()
        try:
            for chunk in reads:
                for sse in parser.feed(chunk):
                    decoder.feed(sse)
                    if decoder.done:
                        break
                if decoder.done:
                    break
            else:
                for sse in parser.close():
                    decoder.feed(sse)
                    if decoder.done:
                        break
            decoder.finish()
        except ProviderError:
            pass  # a recorded in-band error: decoded as far as the stream goes
        decoded += 1
    return decoded


def best_rate(label: str, size: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(RUNS):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    rate = size / best / 1e6
    print(f"{label:<44} {size / 1e6:7.1f} MB in {best:6.3f} s  = {rate:7.1f} MB/s")
    return rate


def main() -> int:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    minimum = int(megabytes * 1e6)
    chat = load("chat--")
    responses = load("responses--")
    if not chat or not responses:
        print(f"no fixtures found under {STREAMS}", file=sys.stderr)
        return 1

    every, every_size = corpus(chat + responses, minimum)
    chat_streams, chat_size = corpus(chat, minimum)
    resp_streams, resp_size = corpus(responses, minimum)
    print(
        f"{len(chat)} chat + {len(responses)} responses fixtures, "
        f"{READ_SIZE} B reads, best of {RUNS}"
    )

    best_rate("SSE parser only (all fixtures)", every_size, lambda: parse_only(every))
    chat_rate = best_rate(
        "full decode: Chat Completions",
        chat_size,
        lambda: decode_all(chat_streams, lambda: ChatStreamDecoder("bench", "http://bench")),
    )
    resp_rate = best_rate(
        "full decode: Responses",
        resp_size,
        lambda: decode_all(resp_streams, lambda: ResponsesStreamDecoder("bench", "http://bench")),
    )
    slowest = min(chat_rate, resp_rate)
    verdict = "ok" if slowest >= TARGET_MB_S else "BELOW TARGET"
    print(f"slowest full decode {slowest:.1f} MB/s (target >= {TARGET_MB_S:g} MB/s): {verdict}")
    return 0 if slowest >= TARGET_MB_S else 2


if __name__ == "__main__":
    sys.exit(main())
