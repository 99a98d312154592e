"""The one-line context status bar drawn on stderr after each turn, when it is a terminal.

    [████████████░░░░░░░░] 12.3k/32.8k tokens (50%) │ 12.3k remaining │ 10 messages

The bar fills with the share of the prompt budget in use; it is green under 60 %, yellow
up to 80 % and red above. rich draws it, and is imported only when a bar is drawn, so a
client that reads stderr through a pipe never pays for it (nor sees the bar).
"""

from __future__ import annotations

import sys

from rho_kernel.session.stats import ContextStats

BAR_CELLS = 20
"""The width of the bar in cells."""


def short_tokens(count: int) -> str:
    """A token count as a person reads it: `950`, `12.3k`, `32k`, `1.2M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        text = f"{count / 1000:.1f}".removesuffix(".0")
        return f"{text}k"
    return f"{count / 1_000_000:.1f}".removesuffix(".0") + "M"


def colour_of(percent: float) -> str:
    """green under 60 %, yellow from 60 % to 80 %, red above."""
    if percent < 60:
        return "green"
    if percent <= 80:
        return "yellow"
    return "red"


def status_line(stats: ContextStats, cells: int = BAR_CELLS) -> str:
    """The status bar as plain text."""
    percent = stats.utilization_percent
    filled = min(cells, max(0, round(percent * cells / 100)))
    bar = "█" * filled + "░" * (cells - filled)
    messages = stats.message_count
    return (
        f"[{bar}] {short_tokens(stats.estimated_used)}/{short_tokens(stats.context_window)} "
        f"tokens ({percent:.0f}%) │ {short_tokens(stats.estimated_remaining)} remaining │ "
        f"{messages} message{'' if messages == 1 else 's'}"
    )


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (a closed or odd stderr is not)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def draw_status_bar(stats: ContextStats) -> None:
    """Draw the bar on stderr in its colour (rich honours NO_COLOR)."""
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, highlight=False).print(
        Text(status_line(stats), style=colour_of(stats.utilization_percent)), soft_wrap=True
    )


__all__ = [
    "BAR_CELLS",
    "colour_of",
    "draw_status_bar",
    "short_tokens",
    "status_line",
    "stderr_is_terminal",
]
