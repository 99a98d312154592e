"""What fitting gives: the fitted request (`FitResult`), the error when nothing fits
(`ContextOverflow`), and the note standing in for left-out messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rho_kernel.context.estimator import MESSAGE_OVERHEAD, utf8_len
from rho_kernel.context.steps import FitStep


def omitted_note(count: int) -> str:
    """The text of the message standing in for `count` left-out messages."""
    return f"[{count} earlier messages were left out here to fit the context window]"


_NOTE_BYTES = utf8_len(omitted_note(10**12)) + MESSAGE_OVERHEAD


class ContextOverflow(Exception):
    """The parts of the conversation that are never shortened do not fit the budget."""

    def __init__(self, needed_tokens: int, budget_tokens: int, overhead_tokens: int) -> None:
        self.needed_tokens = needed_tokens
        self.budget_tokens = budget_tokens
        self.overhead_tokens = overhead_tokens
        super().__init__(
            f"the conversation does not fit the context window: even with older turns "
            f"shortened and left out, the request needs about {needed_tokens} tokens "
            f"(system prompt, first and latest request, latest turn, pinned entries and "
            f"{overhead_tokens} tokens of tool definitions) but the prompt budget is "
            f"{budget_tokens} tokens (context window minus completion reserve). Use a model "
            f"with a larger window or raise --token-budget / [agent] token_budget, lower "
            f"[agent] completion_reserve, or start over (clear, or a new session)"
        )


@dataclass(frozen=True, slots=True)
class FitResult:
    """One fitted request: the wire messages and what fitting did.

    `estimated_tokens` counts the messages and the `overhead` (tool definitions);
    `outlined`, `summarized` and `evicted` count entries shown shortened or left out;
    `measured` how many path entries were examined for this fit (new ones, or all after a
    restart) and `rebuilt` whether the plan started over. `step` says whether the request
    rewrote part of what the previous request sent, and why (None: not known, for a result
    made elsewhere than by a `ContextFitter`).
    """

    messages: list[dict[str, Any]]
    estimated_tokens: int
    budget_tokens: int
    outlined: int
    summarized: int
    evicted: int
    measured: int
    rebuilt: bool
    step: FitStep | None = None


__all__ = ["ContextOverflow", "FitResult", "omitted_note"]
