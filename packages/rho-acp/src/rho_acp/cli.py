"""`rho acp`: serve the Agent Client Protocol on stdin and stdout.

stdout carries ACP frames only: the process's own file descriptor 1 is pointed at stderr
before anything else runs, so that a stray print, a plugin's or a child's, lands among the
diagnostics instead of between two frames; the frames go to a copy of the original stdout.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any


def main(argv: list[str], runtime_options: Callable[..., Any]) -> int:
    """Entry point of `rho acp [FLAGS]` (rho's usual flags: `--model`, `--endpoint`, …)."""
    options = runtime_options(argv, "rho acp")
    if isinstance(options, int):
        return options
    frames = os.dup(1)
    os.dup2(2, 1)
    try:
        from rho_acp.serve import serve

        asyncio.run(serve(options, frames))
    except KeyboardInterrupt:
        return 130
    return 0


__all__ = ["main"]
