"""Provider and model resolution: presets, overrides, order."""

from __future__ import annotations

import pytest

from rho_kernel.config.model import RhoConfig
from rho_kernel.providers.resolve import (
    DEFAULT_ENDPOINT,
    derive_models_endpoint,
    is_local_endpoint,
    resolve_model,
    resolve_provider,
)


def _config(data: dict) -> RhoConfig:
    return RhoConfig.model_validate(data)


def test_default_is_the_local_endpoint() -> None:
    provider = resolve_provider(RhoConfig())
    assert provider.endpoint == DEFAULT_ENDPOINT and provider.api == "chat_completions"
    assert provider.is_local


def test_cli_endpoint_wins_and_carries_the_key_env() -> None:
    config = _config({"providers": [{"preset": "openrouter"}]})
    provider = resolve_provider(
        config, endpoint="https://x.example/v1/chat/completions", api_key_env="K"
    )
    assert provider.endpoint == "https://x.example/v1/chat/completions"
    assert provider.api_key_env == "K" and not provider.is_local


def test_preset_fills_unset_fields_and_explicit_values_win() -> None:
    config = _config(
        {
            "providers": [
                {"preset": "openai", "api_key_env": "OPENAI_API_KEY"},
                {
                    "preset": "zai",
                    "endpoint": "https://api.z.ai/api/coding/paas/v4/chat/completions",
                    "name": "mine",
                },
            ]
        }
    )
    openai = resolve_provider(config)
    assert (openai.name, openai.api) == ("openai", "responses")
    assert openai.endpoint == "https://api.openai.com/v1/responses"
    config.agent.provider = "mine"
    zai = resolve_provider(config)
    assert zai.models_endpoint == "https://api.z.ai/api/coding/paas/v4/models"


def test_agent_provider_must_name_a_provider() -> None:
    with pytest.raises(ValueError, match="nowhere"):
        resolve_provider(
            _config({"agent": {"provider": "nowhere"}, "providers": [{"preset": "ollama"}]})
        )


def test_api_key_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sekret")
    provider = resolve_provider(RhoConfig(), api_key_env="MY_KEY")
    assert provider.api_key == "sekret"
    monkeypatch.setenv("MY_KEY", "")
    assert provider.api_key is None


def test_model_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(
        {
            "providers": [
                {"name": "a", "default_model": "model-a"},
                {"name": "b", "default_model": "model-b"},
            ]
        }
    )
    provider_b = resolve_provider(_config({**config.model_dump(), "agent": {"provider": "b"}}))
    assert resolve_model(config, provider_b, cli_model="cli") == "cli"
    config.agent.model = "configured"
    assert resolve_model(config, provider_b) == "configured"
    config.agent.model = None
    assert resolve_model(config, provider_b) == "model-b"
    plain = resolve_provider(RhoConfig())
    assert resolve_model(config, plain) == "model-a"
    monkeypatch.setenv("RHO_MODEL", "from-env")
    assert resolve_model(RhoConfig(), plain) == "from-env"
    monkeypatch.delenv("RHO_MODEL")
    assert resolve_model(RhoConfig(), plain) == "anthropic/claude-sonnet-4"


@pytest.mark.parametrize(
    ("endpoint", "local"),
    [
        ("http://localhost:1234/v1/chat/completions", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://api.localhost/v1", True),
        ("https://api.openai.com/v1/responses", False),
        ("http://192.168.1.10:11434/v1", False),
    ],
)
def test_local_detection(endpoint: str, local: bool) -> None:
    assert is_local_endpoint(endpoint) is local


def test_models_endpoint_derivation() -> None:
    assert derive_models_endpoint("http://h/v1/chat/completions") == "http://h/v1/models"
    assert derive_models_endpoint("http://h/v1/responses/") == "http://h/v1/models"


def test_provider_warnings() -> None:
    from rho_kernel.providers.resolve import provider_warnings

    config = _config(
        {
            "providers": [
                {"preset": "groq"},
                {"preset": "nonesuch", "name": "odd"},
                {"name": "claude", "type": "anthropic", "endpoint": "http://localhost:9/v1"},
                {"preset": "openai", "api_key_env": "OPENAI_API_KEY"},
            ]
        }
    )
    warnings = provider_warnings(config)
    assert len(warnings) == 3
    assert 'api_key_env = "GROQ_API_KEY"' in warnings[0]
    assert "unknown preset 'nonesuch'" in warnings[1]
    assert "type 'anthropic'" in warnings[2]


def test_named_model_is_none_when_nothing_names_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from rho_kernel.providers.resolve import named_model

    monkeypatch.delenv("RHO_MODEL", raising=False)
    plain = resolve_provider(RhoConfig())
    assert named_model(RhoConfig(), plain) is None
    assert named_model(RhoConfig(), plain, cli_model="m") == "m"
    monkeypatch.setenv("RHO_MODEL", "from-env")
    assert named_model(RhoConfig(), plain) == "from-env"


def test_missing_key_warnings_name_the_variable_and_provider_never_a_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rho_kernel.providers.resolve import configured_providers, missing_key_warnings

    monkeypatch.delenv("RHO_TEST_UNSET_KEY", raising=False)
    monkeypatch.setenv("RHO_TEST_EMPTY_KEY", "")
    monkeypatch.setenv("RHO_TEST_SET_KEY", "sk-live-value")
    config = _config(
        {
            "providers": [
                {
                    "name": "unset",
                    "endpoint": "http://localhost:1/v1",
                    "api_key_env": "RHO_TEST_UNSET_KEY",
                },
                {
                    "name": "empty",
                    "endpoint": "http://localhost:2/v1",
                    "api_key_env": "RHO_TEST_EMPTY_KEY",
                },
                {
                    "name": "set",
                    "endpoint": "http://localhost:3/v1",
                    "api_key_env": "RHO_TEST_SET_KEY",
                },
                {"name": "keyless", "endpoint": "http://localhost:4/v1"},
            ]
        }
    )
    warnings = missing_key_warnings(configured_providers(config))
    assert len(warnings) == 2
    assert "'unset'" in warnings[0] and "RHO_TEST_UNSET_KEY" in warnings[0]
    assert "not set" in warnings[0]
    assert "'empty'" in warnings[1] and "RHO_TEST_EMPTY_KEY" in warnings[1]
    assert "empty" in warnings[1]
    assert not any("sk-live-value" in w for w in warnings)


def test_endpoint_is_shown_masked_but_used_as_is() -> None:
    secret = "https://me:pa55@api.example.com/v1/chat/completions?api_key=SECRET"
    provider = resolve_provider(RhoConfig(), endpoint=secret)
    assert provider.endpoint == secret
    assert provider.shown_endpoint == "https://***@api.example.com/v1/chat/completions?api_key=***"
    assert "SECRET" not in provider.shown_models_endpoint


def test_consent_refusal_and_warnings_show_endpoints_masked() -> None:
    from rho_kernel.providers import consent_message
    from rho_kernel.providers.resolve import configured_providers, provider_warnings

    secret = "https://me:pa55@api.example.com/v1/chat/completions?key=SECRET"
    config = _config({"providers": [{"endpoint": secret, "type": "anthropic"}]})
    refusal = consent_message(configured_providers(config))
    assert refusal is not None and "https://***@api.example.com/" in refusal
    [warning] = provider_warnings(config)
    for text in (refusal, warning):
        assert "pa55" not in text and "SECRET" not in text
