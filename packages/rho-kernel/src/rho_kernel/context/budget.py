"""`TokenBudget`: how many tokens a request may hold, and where that number comes from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.config.model import AgentConfig
    from rho_kernel.providers.catalog import ModelCatalog

DEFAULT_CONTEXT_WINDOW = 32768
"""The context window when neither a flag, the config nor the model catalog names one."""


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """A model's context window split into the prompt budget and the completion reserve.

    The reserve is what the reply may use (sent as `max_tokens`); it is capped at half the
    window, so that a small window (`--token-budget 4096` with the default reserve of 8192)
    still leaves room for a prompt. `source` says where the window came from: `flag`
    (`--token-budget`), `config` (`[agent] token_budget`), `catalog` (`[[models]]` or the
    built-in model table) or `default`.
    """

    context_window: int
    completion_reserve: int
    source: str = "default"

    @classmethod
    def of(
        cls, context_window: int, completion_reserve: int, source: str = "default"
    ) -> TokenBudget:
        """A budget for `context_window` tokens with the reserve capped at half of it."""
        window = max(1, int(context_window))
        reserve = max(1, min(int(completion_reserve), window // 2))
        return cls(window, reserve, source)

    @property
    def prompt_budget(self) -> int:
        """The tokens the request's messages and tool definitions may use together."""
        return max(0, self.context_window - self.completion_reserve)


def resolve_budget(
    agent: AgentConfig,
    *,
    model: str,
    provider: str | None = None,
    catalog: ModelCatalog | None = None,
    flag: int | None = None,
) -> TokenBudget:
    """The budget for `model`, first match wins for the window: `flag` (`--token-budget`),
    `[agent] token_budget` when a config file sets it, the model's `context_window` from
    `[[models]]` or the built-in catalog, and 32768."""
    reserve = agent.completion_reserve
    if flag is not None:
        return TokenBudget.of(flag, reserve, "flag")
    if "token_budget" in agent.model_fields_set:
        return TokenBudget.of(agent.token_budget, reserve, "config")
    if catalog is not None:
        window = catalog.context_window(model, provider)
        if window is not None and window > 0:
            return TokenBudget.of(window, reserve, "catalog")
    return TokenBudget.of(DEFAULT_CONTEXT_WINDOW, reserve, "default")


__all__ = ["DEFAULT_CONTEXT_WINDOW", "TokenBudget", "resolve_budget"]
