"""Diagnostics on stderr with one prefix for every part of rho.

stdout carries protocol only, so everything meant for a human goes here: `rho: warning: …`
for something the user should know about, `rho: error: …` for something that failed, and
`rho: …` for plain information. Front ends with richer output (colour on a terminal) wrap
these; the kernel and plugins call them directly.
"""

from __future__ import annotations

import sys

PREFIX = "rho: "


def info(message: str) -> None:
    """`rho: {message}` on stderr."""
    _write(f"{PREFIX}{message}")


def warn(message: str) -> None:
    """`rho: warning: {message}` on stderr."""
    _write(f"{PREFIX}warning: {message}")


def error(message: str) -> None:
    """`rho: error: {message}` on stderr."""
    _write(f"{PREFIX}error: {message}")


def _write(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr closed: diagnostics are best effort
        pass
    except UnicodeEncodeError:
        print(line.encode("ascii", "backslashreplace").decode("ascii"), file=sys.stderr)


__all__ = ["PREFIX", "error", "info", "warn"]
