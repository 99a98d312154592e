"""The one-line context status bar drawn on stderr after each turn, when it is a terminal.

    [████████████░░░░░░░░] path 12.3k/32.8k tokens (50%) │ sent 9.1k (37%, 4 outlined) │ 12.3k remaining │ 10 messages │ cache 87% (last turn 92%)

Two measures, labelled: `path` is the session's raw path (what compaction is decided on),
`sent` what the model receives of it once fitted into the prompt budget (with how many
entries fitting outlined, summarized or left out). `cache` is the prompt cache's hit rate as
the provider reports it (cached ÷ input tokens) over the session's requests and over the last
turn's, shown once the provider has reported input tokens. The bar fills with the path's share
of the prompt budget; it is green under 60 %, yellow up to 80 % and red above. rich draws it,
and is imported only when a bar is drawn, so a client that reads stderr through a pipe never
pays for it (nor sees the bar).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rho_kernel.session import ContextStats
from rho_rpc.render import fitted_percent

if TYPE_CHECKING:
    from rho_kernel import Runtime
    from rho_kernel.frontend import CacheHits, FitResult

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


def status_line(
    stats: ContextStats,
    fitted: FitResult | None = None,
    cells: int = BAR_CELLS,
    cache: tuple[CacheHits, CacheHits | None] | None = None,
) -> str:
    """The status bar as plain text (`fitted` None: the path does not fit the budget;
    `cache` the cache hits of the session and of its last turn)."""
    percent = stats.utilization_percent
    filled = min(cells, max(0, round(percent * cells / 100)))
    bar = "█" * filled + "░" * (cells - filled)
    messages = stats.message_count
    line = (
        f"[{bar}] path {short_tokens(stats.estimated_used)}/{short_tokens(stats.context_window)} "
        f"tokens ({percent:.0f}%) │ {_sent(fitted)} │ "
        f"{short_tokens(stats.estimated_remaining)} remaining │ "
        f"{messages} message{'' if messages == 1 else 's'}"
    )
    hits = _cache(*cache) if cache is not None else None
    return f"{line} │ {hits}" if hits is not None else line


def _cache(session: CacheHits, last_turn: CacheHits | None) -> str | None:
    """`cache 87% (last turn 92%)`; None while the provider reported no input tokens."""
    if session.input_tokens <= 0:
        return None
    text = f"cache {_whole_percent(session)}%"
    if last_turn is not None and last_turn.input_tokens > 0:
        text += f" (last turn {_whole_percent(last_turn)}%)"
    return text


def _whole_percent(hits: CacheHits) -> int:
    """cached ÷ input tokens in whole percent, rounded down (100 only when all was cached)."""
    return min(100, max(0, hits.cached_tokens) * 100 // hits.input_tokens)


def _sent(fitted: FitResult | None) -> str:
    """What the model receives: `sent 9.1k (37%, 4 outlined, 1 left out)`."""
    if fitted is None:
        return "sent: does not fit"
    parts = [f"{fitted_percent(fitted):.0f}%"]
    parts += [
        f"{count} {label}"
        for count, label in (
            (fitted.outlined, "outlined"),
            (fitted.summarized, "summarized"),
            (fitted.evicted, "left out"),
        )
        if count
    ]
    return f"sent {short_tokens(fitted.estimated_tokens)} ({', '.join(parts)})"


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (a closed or odd stderr is not)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def draw_status_bar(
    stats: ContextStats,
    fitted: FitResult | None = None,
    cache: tuple[CacheHits, CacheHits | None] | None = None,
) -> None:
    """Draw the bar on stderr in its colour (rich honours NO_COLOR)."""
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, highlight=False).print(
        Text(status_line(stats, fitted, cache=cache), style=colour_of(stats.utilization_percent)),
        soft_wrap=True,
    )


def draw_after_turn(runtime: Runtime) -> None:
    """After a turn, the context status bar on stderr when it is a terminal (a bar that
    cannot be drawn is reported, never raised)."""
    if not stderr_is_terminal():
        return
    try:
        draw_status_bar(
            runtime.meter().stats(runtime.session),
            runtime.fitted_view(),
            runtime.cache_hits.of(runtime.session.id),
        )
    except Exception as exc:  # a status line must never fail a prompt
        from rho_rpc.diagnostics import report

        report(f"the status bar could not be drawn: {exc}", "warning")


__all__ = [
    "BAR_CELLS",
    "colour_of",
    "draw_after_turn",
    "draw_status_bar",
    "short_tokens",
    "status_line",
    "stderr_is_terminal",
]
