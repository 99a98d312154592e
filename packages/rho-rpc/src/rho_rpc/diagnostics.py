"""Diagnostics on stderr (stdout carries protocol only): colour on a terminal, plain otherwise."""

from __future__ import annotations

import os
import sys
from typing import Literal

from rho_kernel import diagnostics

Level = Literal["info", "warning", "error"]
_STYLES = {"info": "dim", "warning": "yellow", "error": "bold red"}


def _use_colour() -> bool:
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR")


def report(message: str, level: Level = "info") -> None:
    """Write one diagnostic line to stderr (rich styling only on a colour terminal)."""
    if _use_colour():
        from rich.console import Console
        from rich.markup import escape

        label = {"info": "", "warning": "warning: ", "error": "error: "}[level]
        text = escape(f"{diagnostics.PREFIX}{label}{message}")
        Console(stderr=True).print(f"[{_STYLES[level]}]{text}[/]")
        return
    {"info": diagnostics.info, "warning": diagnostics.warn, "error": diagnostics.error}[level](
        message
    )


__all__ = ["report"]
