"""The token budget: where the window comes from, and the capped completion reserve."""

from __future__ import annotations

from rho_kernel.config.model import AgentConfig, ModelConfig
from rho_kernel.context import TokenBudget, resolve_budget
from rho_kernel.providers.catalog import ModelCatalog


def test_prompt_budget_is_window_minus_reserve() -> None:
    budget = TokenBudget.of(32768, 8192)
    assert (budget.context_window, budget.completion_reserve) == (32768, 8192)
    assert budget.prompt_budget == 24576


def test_reserve_is_capped_at_half_a_small_window() -> None:
    budget = TokenBudget.of(4096, 8192)
    assert budget.completion_reserve == 2048 and budget.prompt_budget == 2048


def test_flag_wins_over_config_and_catalog() -> None:
    agent = AgentConfig.model_validate({"token_budget": 50000})
    catalog = ModelCatalog([ModelConfig(id="m", context_window=100000)])
    budget = resolve_budget(agent, model="m", catalog=catalog, flag=9000)
    assert (budget.context_window, budget.source) == (9000, "flag")


def test_config_set_in_a_file_wins_over_the_catalog() -> None:
    agent = AgentConfig.model_validate({"token_budget": 50000})
    catalog = ModelCatalog([ModelConfig(id="m", context_window=100000)])
    budget = resolve_budget(agent, model="m", catalog=catalog)
    assert (budget.context_window, budget.source) == (50000, "config")


def test_models_entry_and_builtin_catalog_give_the_window_when_config_is_silent() -> None:
    agent = AgentConfig()
    catalog = ModelCatalog([ModelConfig(id="m", context_window=100000)])
    assert resolve_budget(agent, model="m", catalog=catalog).context_window == 100000
    builtin = resolve_budget(agent, model="gpt-4o", catalog=catalog)
    assert (builtin.context_window, builtin.source) == (128_000, "catalog")


def test_unknown_model_gets_the_default_window() -> None:
    budget = resolve_budget(AgentConfig(), model="no-such-model", catalog=ModelCatalog([]))
    assert (budget.context_window, budget.source) == (32768, "default")
