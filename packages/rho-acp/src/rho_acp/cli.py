"""`rho acp`: serve the Agent Client Protocol on stdin and stdout.

stdout carries ACP frames only: the process's own file descriptor 1 is pointed at stderr
before anything else runs, so that a stray print, a plugin's or a child's, lands among the
diagnostics instead of between two frames; the frames go to a copy of the original stdout.
"""

from __future__ import annotations

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
    from rho_acp.serve import serve
    from rho_kernel.frontend import run_to_end

    # Ends in bounded time when the editor's input ends, whatever the work it started does
    # (a thread blocked for good is not waited for): see rho_kernel.frontend.run_to_end.
    return run_to_end(_served(serve(options, frames)))


async def _served(serving: Any) -> int:
    await serving
    return 0


__all__ = ["main"]
