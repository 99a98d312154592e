"""Benchmark: redacting 10 MB of ordinary source code, and of log output with secrets.

Run: uv run python bench/redaction.py [megabytes]
The source is the Python of the installed standard library (repeated to the size asked for,
default 10 MB), so it holds every kind of near miss real code has: variables named `token`
and `password`, `Bearer` in prose, base64 and hex blobs. Prints MB/s for a whole-text pass,
for the same text fed as 64 KiB live-output chunks, and how many replacements were made;
then the source again once a private key has been seen (every text is then searched for
slices of it).
"""

from __future__ import annotations

import base64
import random
import sys
import sysconfig
import time
from pathlib import Path

from rho_kernel.security.redaction import REDACTED, Redactor


def ordinary_source(size: int) -> str:
    """At least `size` characters of standard-library Python, whole files."""
    parts: list[str] = []
    total = 0
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    while total < size:
        for path in sorted(stdlib.glob("*.py")):
            text = path.read_text(encoding="utf-8", errors="replace")
            parts.append(text)
            total += len(text)
            if total >= size:
                break
    return "".join(parts)[:size]


def secret_log(size: int) -> str:
    """`size` characters of log lines, one in ten with a credential in it."""
    line = "2024-05-01T10:00:00Z INFO request handled path=/api/items status=200 ms=12\n"
    secret = "2024-05-01T10:00:01Z DEBUG Authorization: Bearer a1b2c3d4e5f6a7b8c9d0 ok\n"
    block = line * 9 + secret
    return (block * (size // len(block) + 1))[:size]


def private_key() -> str:
    """A PEM private key of random bytes (RSA-4096's size)."""
    body = base64.b64encode(random.Random(4096).randbytes(2375)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join(["-----BEGIN PRIVATE KEY-----", *lines, "-----END PRIVATE KEY-----"])


def measure(label: str, redactor: Redactor, text: str) -> None:
    """Print MB/s of a whole-text pass and of chunked streaming over `text`."""
    started = time.perf_counter()
    out = redactor.redact(text)
    whole = time.perf_counter() - started
    stream = redactor.stream()
    started = time.perf_counter()
    pieces = [stream.feed(text[i : i + 65536]) for i in range(0, len(text), 65536)]
    pieces.append(stream.flush())
    chunked = time.perf_counter() - started
    mb = len(text.encode("utf-8")) / 1e6
    print(
        f"{label}: {mb:.1f} MB  whole {mb / whole:.1f} MB/s  "
        f"streamed {mb / chunked:.1f} MB/s  replacements {out.count(REDACTED)} "
        f"(streamed {''.join(pieces).count(REDACTED)})"
    )


def main() -> None:
    """Run the benchmark."""
    size = int(float(sys.argv[1]) * 1_000_000) if len(sys.argv) > 1 else 10_000_000
    redactor = Redactor()
    source = ordinary_source(size)
    measure("ordinary source", redactor, source)
    measure("log with secrets", redactor, secret_log(size))
    redactor.redact(private_key())  # learned: every text is now searched for its pieces
    measure("ordinary source, a key learned", redactor, source)


if __name__ == "__main__":
    main()
