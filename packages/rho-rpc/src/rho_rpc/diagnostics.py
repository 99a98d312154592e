"""Diagnostics on stderr (stdout carries protocol only): colour on a terminal, plain otherwise."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Literal

from rho_kernel import StashKey, diagnostics

if TYPE_CHECKING:
    from rho_kernel import Runtime

Level = Literal["info", "warning", "error"]
_STYLES = {"info": "dim", "warning": "yellow", "error": "bold red"}

#: The messages `report_once` gave in a runtime, kept in its stash.
REPORTED: StashKey[set[str]] = StashKey("rho-rpc reported")


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


def report_once(runtime: Runtime, message: str) -> None:
    """Report a plugin's problem through the runtime's plugin host, the first time only: what
    plugins give on every request (`getState`, `listCommands`) is judged on every request,
    and one broken contribution must not fill stderr."""
    reported = runtime.stash.setdefault(REPORTED, set())
    if message not in reported:
        reported.add(message)
        runtime.plugins.report(message)


__all__ = ["REPORTED", "report", "report_once"]
