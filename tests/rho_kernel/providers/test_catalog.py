"""The model catalog: lookup precedence, cost computation, and `[[models]]` config merging."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.config import load_config, project_config_path, user_config_path
from rho_kernel.config.model import ModelConfig
from rho_kernel.providers.catalog import ModelCatalog, ModelPrice
from rho_kernel.providers.catalog_data import BUILTIN_MODELS, ModelRow
from rho_kernel.providers.events import Usage


def row(input: float, output: float, cached: float | None = None, window: int = 1000) -> ModelRow:
    return {"input": input, "output": output, "cached": cached, "context_window": window}


TABLE: dict[str, ModelRow] = {
    "gpt-4o": row(2.5, 10.0, 1.25, 128_000),
    "anthropic/claude-sonnet-4": row(3.0, 15.0, 0.3, 200_000),
    # Two vendors publishing the same basename at different prices: ambiguous.
    "alpha/shared-model": row(1.0, 2.0, window=10_000),
    "beta/shared-model": row(5.0, 6.0, window=20_000),
    # Two rows with the same basename and the same price: not ambiguous.
    "x/twin": row(0.5, 0.5, window=4_000),
    "y/twin": row(0.5, 0.5, window=4_000),
    "free-sentinel": row(-1.0, -1.0),
}


@pytest.fixture
def catalog() -> ModelCatalog:
    return ModelCatalog(builtin=TABLE)


# ── the built-in table ──────────────────────────────────────────────────────


def test_builtin_table_is_well_formed() -> None:
    assert 15 <= len(BUILTIN_MODELS) <= 40
    for model_id, data in BUILTIN_MODELS.items():
        assert data["input"] >= 0 and data["output"] >= 0, model_id
        assert data["cached"] is None or 0 <= data["cached"] <= data["input"], model_id
        assert data["context_window"] >= 8_192, model_id


def test_default_catalog_knows_common_models() -> None:
    catalog = ModelCatalog()
    assert catalog.price("gpt-4o") == ModelPrice(2.5, 10.0, 1.25)
    assert catalog.context_window("gpt-4o") == 128_000
    # OpenRouter id → bare row and bare id → OpenRouter row, both through the basename.
    assert catalog.price("openai/gpt-4o") == ModelPrice(2.5, 10.0, 1.25)
    assert catalog.price("claude-sonnet-4") == catalog.price("anthropic/claude-sonnet-4")
    assert catalog.context_window("anthropic/claude-sonnet-4") == 200_000
    for model in ("gpt-5", "deepseek-chat", "google/gemini-2.5-pro", "gemini-2.5-flash"):
        assert catalog.price(model) is not None, model


# ── precedence ──────────────────────────────────────────────────────────────


def test_exact_builtin_id(catalog: ModelCatalog) -> None:
    assert catalog.price("gpt-4o") == ModelPrice(2.5, 10.0, 1.25)
    assert catalog.price("anthropic/claude-sonnet-4") == ModelPrice(3.0, 15.0, 0.3)
    assert catalog.context_window("gpt-4o") == 128_000


def test_basename_match_both_directions(catalog: ModelCatalog) -> None:
    assert catalog.price("openai/gpt-4o") == ModelPrice(2.5, 10.0, 1.25)
    assert catalog.price("claude-sonnet-4") == ModelPrice(3.0, 15.0, 0.3)
    assert catalog.price("openrouter/anthropic/claude-sonnet-4") == ModelPrice(3.0, 15.0, 0.3)
    assert catalog.context_window("claude-sonnet-4") == 200_000


def test_ambiguous_basename_is_unknown(catalog: ModelCatalog) -> None:
    assert catalog.price("shared-model") is None
    assert catalog.context_window("shared-model") is None
    assert catalog.price("gamma/shared-model") is None


def test_ambiguous_basename_resolved_by_provider_hint(catalog: ModelCatalog) -> None:
    assert catalog.price("shared-model", provider="beta") == ModelPrice(5.0, 6.0)
    assert catalog.context_window("shared-model", provider="alpha") == 10_000


def test_basename_with_identical_prices_is_not_ambiguous(catalog: ModelCatalog) -> None:
    assert catalog.price("twin") == ModelPrice(0.5, 0.5)
    assert catalog.context_window("z/twin") == 4_000


def test_no_partial_or_case_insensitive_matching(catalog: ModelCatalog) -> None:
    assert catalog.price("gpt-4") is None
    assert catalog.price("GPT-4o") is None
    assert catalog.price("gpt-4o-2024-08-06") is None


def test_unknown_model(catalog: ModelCatalog) -> None:
    assert catalog.price("no-such-model") is None
    assert catalog.context_window("no-such-model") is None
    assert catalog.cost("no-such-model", Usage(input_tokens=1000, output_tokens=10)) is None


def test_override_beats_builtin_exact_and_basename() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="gpt-4o", input_price=1.0, output_price=2.0, context_window=64_000),
            ModelConfig(id="claude-sonnet-4", input_price=9.0, output_price=9.5),
        ],
        builtin=TABLE,
    )
    assert catalog.price("gpt-4o") == ModelPrice(1.0, 2.0, None)
    assert catalog.context_window("gpt-4o") == 64_000
    # The override is for the exact id only …
    assert catalog.price("claude-sonnet-4") == ModelPrice(9.0, 9.5)
    # … the OpenRouter id still resolves to the built-in row.
    assert catalog.price("anthropic/claude-sonnet-4") == ModelPrice(3.0, 15.0, 0.3)
    # The override prices the model; the context window still comes from the basename row.
    assert catalog.context_window("claude-sonnet-4") == 200_000


def test_override_of_unknown_model() -> None:
    catalog = ModelCatalog(
        [ModelConfig(id="local/llama", input_price=0.0, output_price=0.0, context_window=8192)],
        builtin=TABLE,
    )
    assert catalog.price("local/llama") == ModelPrice(0.0, 0.0)
    assert catalog.context_window("local/llama") == 8192
    assert catalog.cost("local/llama", Usage(input_tokens=5000, output_tokens=100)) == 0.0
    assert catalog.price("llama") is None  # overrides match by exact id only


def test_provider_scoped_override() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="gpt-4o", provider="azure", input_price=3.0, output_price=12.0),
            ModelConfig(id="gpt-4o", provider="proxy", input_price=0.0, output_price=0.0),
        ],
        builtin=TABLE,
    )
    assert catalog.price("gpt-4o", provider="azure") == ModelPrice(3.0, 12.0)
    assert catalog.price("gpt-4o", provider="Azure") == ModelPrice(3.0, 12.0)
    assert catalog.price("gpt-4o", provider="proxy") == ModelPrice(0.0, 0.0)
    # Other providers, or no provider, get the built-in price.
    assert catalog.price("gpt-4o", provider="openai") == ModelPrice(2.5, 10.0, 1.25)
    assert catalog.price("gpt-4o") == ModelPrice(2.5, 10.0, 1.25)


def test_provider_scoped_override_beats_unscoped_one() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="m", provider="p", input_price=1.0, output_price=1.0),
            ModelConfig(id="m", input_price=2.0, output_price=2.0),
        ],
        builtin={},
    )
    assert catalog.price("m", provider="p") == ModelPrice(1.0, 1.0)
    assert catalog.price("m", provider="q") == ModelPrice(2.0, 2.0)
    assert catalog.price("m") == ModelPrice(2.0, 2.0)


def test_later_override_for_same_id_wins() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="m", input_price=1.0, output_price=1.0),
            ModelConfig(id="m", input_price=2.0, output_price=3.0),
        ],
        builtin={},
    )
    assert catalog.price("m") == ModelPrice(2.0, 3.0)


def test_partial_override_fills_from_builtin() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="gpt-4o", output_price=20.0),
            ModelConfig(id="orphan", input_price=1.0),
            ModelConfig(id="windowed", context_window=4096),
        ],
        builtin={**TABLE, "windowed": row(1.0, 2.0, window=9999)},
    )
    assert catalog.price("gpt-4o") == ModelPrice(2.5, 20.0, 1.25)
    assert catalog.price("orphan") is None  # nothing to fill the output price from
    assert catalog.price("windowed") == ModelPrice(1.0, 2.0)  # window-only override
    assert catalog.context_window("windowed") == 4096


# ── cost ────────────────────────────────────────────────────────────────────


def test_cost_without_cache(catalog: ModelCatalog) -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=500_000)
    assert catalog.cost("gpt-4o", usage) == pytest.approx(2.5 + 5.0)


def test_cost_with_cached_tokens(catalog: ModelCatalog) -> None:
    usage = Usage(input_tokens=10_000, cached_tokens=4_000, output_tokens=2_000)
    expected = (6_000 * 2.5 + 4_000 * 1.25 + 2_000 * 10.0) / 1e6
    assert catalog.cost("gpt-4o", usage) == pytest.approx(expected)


def test_cached_tokens_are_capped_at_input_tokens(catalog: ModelCatalog) -> None:
    usage = Usage(input_tokens=1_000, cached_tokens=5_000, output_tokens=0)
    assert catalog.cost("gpt-4o", usage) == pytest.approx(1_000 * 1.25 / 1e6)


@pytest.mark.parametrize("cached", [None, 0.0])
def test_cached_tokens_without_cache_price_bill_as_input(cached: float | None) -> None:
    catalog = ModelCatalog(builtin={"m": row(2.0, 4.0, cached)})
    usage = Usage(input_tokens=1_000, cached_tokens=600, output_tokens=100)
    assert catalog.cost("m", usage) == pytest.approx((1_000 * 2.0 + 100 * 4.0) / 1e6)


def test_provider_reported_cost_wins(catalog: ModelCatalog) -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cost=0.42)
    assert catalog.cost("gpt-4o", usage) == 0.42
    assert catalog.cost("no-such-model", usage) == 0.42
    assert catalog.cost("free-sentinel", usage) == 0.42
    assert catalog.cost("gpt-4o", Usage(input_tokens=10, cost=0.0)) == 0.0


def test_negative_sentinel_price_has_no_cost(catalog: ModelCatalog) -> None:
    assert catalog.price("free-sentinel") == ModelPrice(-1.0, -1.0)
    assert catalog.cost("free-sentinel", Usage(input_tokens=100, output_tokens=100)) is None
    override = ModelCatalog(
        [ModelConfig(id="gpt-4o", input_price=-1, output_price=10.0)], builtin=TABLE
    )
    assert override.cost("gpt-4o", Usage(input_tokens=100)) is None
    assert not ModelPrice(1.0, 1.0, -1.0).known
    assert ModelPrice(1.0, 1.0, -1.0).cost(Usage(input_tokens=1)) is None


def test_zero_usage_costs_zero(catalog: ModelCatalog) -> None:
    assert catalog.cost("gpt-4o", Usage()) == 0.0


# ── [[models]] through real config files ────────────────────────────────────


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_models_merge_project_over_user_by_id(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    write(
        user_config_path(home),
        """
[[models]]
id = "gpt-4o"
input_price = 1
output_price = 2
cached_price = 0.5

[[models]]
id = "user-only"
input_price = 0.1
output_price = 0.2
context_window = 4096

[[models]]
id = "scoped"
provider = "a"
input_price = 7.0
output_price = 7.0
""",
    )
    write(
        project_config_path(root),
        """
[[models]]
id = "gpt-4o"
input_price = 3.0
output_price = 4.0

[[models]]
id = "project-only"
provider = "local"
input_price = 0.0
output_price = 0.0
context_window = 16384
""",
    )
    warnings: list[str] = []
    config = load_config(root, home=home, warn=warnings.append)
    assert warnings == []
    assert [(m.id, m.provider) for m in config.models] == [
        ("gpt-4o", None),
        ("user-only", None),
        ("scoped", "a"),
        ("project-only", "local"),
    ]
    gpt = config.models[0]
    assert (gpt.input_price, gpt.output_price, gpt.cached_price) == (3.0, 4.0, None)

    catalog = ModelCatalog(config.models, builtin=TABLE)
    assert catalog.price("gpt-4o") == ModelPrice(3.0, 4.0, None)
    assert catalog.price("user-only") == ModelPrice(0.1, 0.2)
    assert catalog.context_window("user-only") == 4096
    assert catalog.price("scoped", provider="a") == ModelPrice(7.0, 7.0)
    assert catalog.price("scoped") is None
    assert catalog.price("project-only", provider="local") == ModelPrice(0.0, 0.0)
    assert catalog.context_window("project-only", provider="local") == 16384


def test_models_from_user_only_are_kept(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    write(user_config_path(home), '[[models]]\nid = "m"\ninput_price = 1.0\noutput_price = 1.0\n')
    write(project_config_path(root), '[agent]\nmodel = "m"\n')
    config = load_config(root, home=home, warn=lambda _: None)
    assert [m.id for m in config.models] == ["m"]


def test_models_merge_dicts_directly() -> None:
    from rho_kernel.config import merge_config_dicts

    user = {"models": [{"id": "a", "input_price": 1.0}, {"id": "b"}, {"id": "a", "provider": "x"}]}
    project = {"models": [{"id": "c"}, {"id": "a", "output_price": 2.0}]}
    merged = merge_config_dicts(user, project)["models"]
    assert merged == [{"id": "a", "output_price": 2.0}, {"id": "b"}, {"id": "c"}]
    assert user["models"][0] == {"id": "a", "input_price": 1.0}  # inputs untouched


def test_invalid_model_entry_names_file_and_key(tmp_path: Path) -> None:
    from rho_kernel.config import ConfigError

    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    write(project_config_path(root), '[[models]]\nid = "m"\ninput_price = "cheap"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(root, home=home, warn=lambda _: None)
    assert caught.value.key == "models[0].input_price"
